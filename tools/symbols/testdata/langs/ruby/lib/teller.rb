require_relative "ledger"

def deposit(ledger, amount)
  ledger.post!(amount)
end

ledger = Accounts::Ledger.open
deposit(ledger, 5)
puts ledger.balance
