# A ledger of entries; post! adds one.
module Accounts
  class Ledger
    LIMIT = 100

    def initialize
      @entries = []
    end

    def post!(amount)
      raise ArgumentError, "post! over LIMIT" if amount > LIMIT
      @entries << amount
      balance
    end

    def balance
      @entries.sum
    end

    def self.open
      new
    end
  end
end
