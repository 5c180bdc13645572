/** What every installer gets, and what it gives back. */

export interface InstallContext {
  cacheDir: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/** One attempt: `path` on success, else `reason`. */
export interface InstallOutcome {
  way: string;
  path?: string;
  reason?: string;
}
