import type { OperationCoordinator } from "../operations/durable-object";

export interface Env {
  DB: D1Database;
  OPERATION_COORDINATOR: DurableObjectNamespace<OperationCoordinator>;
  ASSETS: Fetcher;
  PAGINATION_SECRET: string;
  BENCH_ROUTES?: string;
  D1_LIMITS_GUARD?: string;
}
