// A store of users; findUser looks one up.
export interface User {
  id: string;
  name: string;
}

export class UserStore {
  private users: Map<string, User> = new Map();

  addUser(user: User): void {
    this.users.set(user.id, user);
  }

  findUser(id: string): User | undefined {
    return this.users.get(id);
  }
}

export function createStore(): UserStore {
  return new UserStore();
}

export const DEFAULT_ID = "root";
