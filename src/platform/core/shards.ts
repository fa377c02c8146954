/** The binding name of a tenant shard database (wrangler.toml): every D1 binding named SHARD_… is one. */
export type ShardName = `SHARD_${string}`;

/** A binding of this name is a tenant shard. */
export function isShardName(name: string): name is ShardName {
  return /^SHARD_[A-Z0-9_]+$/.test(name);
}

/** The shards bound in `env`, in name order. */
export function shardNames(env: object): ShardName[] {
  return Object.keys(env).filter(isShardName).sort();
}
