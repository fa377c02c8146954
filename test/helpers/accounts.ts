import { attachPut } from "../../src/attachments/routes/attach";
import { callRoute, expectStatus, type Caller } from "./client";

export const accountId = (i: number) => `ACC-${String(i).padStart(5, "0")}`;

export interface DirectoryAccount {
  accountId: string;
  name: string;
  users: { userId: string; email: string }[];
}

/** `count` directory accounts; account i has users u_i and (every third) a shared user u_shared. */
export function makeAccounts(count: number, shape: (i: number) => Partial<DirectoryAccount> = () => ({}), from = 0): DirectoryAccount[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      accountId: accountId(i),
      name: `Account ${i} ${["Alpha", "beta", "GAMMA"][i % 3]}`,
      users: [{ userId: `u_${i}`, email: `User${i}@Example.test` }, ...(i % 3 === 0 ? [{ userId: "u_shared", email: "shared@example.test" }] : [])],
      ...shape(i),
    };
  });
}

export async function attach(caller: Caller, operationId: string, ids: string[]) {
  return expectStatus(await callRoute(caller, attachPut, { params: { operationId }, body: ids }), 200);
}
