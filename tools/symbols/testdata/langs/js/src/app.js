import { createStore, DEFAULT_ID } from "./store";

const store = createStore();

function greet(id) {
  const user = store.findUser(id || DEFAULT_ID);
  return `hello ${user ? user.name : "findUser failed"}`;
}

const handler = (req) => {
  store.addUser({ id: req.id, name: req.name });
  return greet(req.id);
};

module.exports = { greet, handler };
