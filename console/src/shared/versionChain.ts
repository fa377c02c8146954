/**
 * The If-Match of writes sent one after another under one version check (a save in chunks): it
 * starts at the version the page read, and each write that made a version moves it on, so the next
 * chunk is checked against what this save left (a change by anyone else in between is still a 412).
 * After a write whose versions it cannot count (one that may make none), it reads the version again.
 */
export interface VersionChain {
  /** The If-Match of the next write: `"<version>"`. */
  ifMatch: () => Promise<string>;
  /** The last write made `versions` versions (0: it changed nothing). */
  moved: (versions: number) => void;
  /** The last write made an unknown number of versions: the next reads the version first. */
  lost: () => void;
}

export function versionChain(start: number, read: () => Promise<number>): VersionChain {
  let version: number | null = start;
  return {
    ifMatch: async () => {
      version ??= await read();
      return `"${version}"`;
    },
    moved: (versions) => {
      if (version !== null) version += versions;
    },
    lost: () => {
      version = null;
    },
  };
}
