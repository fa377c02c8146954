import type { CommandExecutor } from "./commands";

export interface Env {
  DB: D1Database;
  OPERATION_COORDINATOR: DurableObjectNamespace<CommandExecutor>;
  ASSETS: Fetcher;
  PAGINATION_SECRET: string;
  D1_LIMITS_GUARD?: string;
}
