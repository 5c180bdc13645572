/**
 * How hard the fault-injection tests push: `npm test` runs a short form, `npm run test:faults` the full one
 * (ARBOR_FAULT_SCALE=full). ARBOR_FAULT_SEED replays the random choices of an earlier run.
 */
export function faultSettings(env: NodeJS.ProcessEnv = process.env) {
  const full = env.ARBOR_FAULT_SCALE === 'full';
  const trials = Number(env.ARBOR_FAULT_TRIALS ?? (full ? 20 : 2));
  const seed = Number(env.ARBOR_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
  return { full, trials, seed };
}

/** A small seeded generator (mulberry32): the same seed gives the same choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
