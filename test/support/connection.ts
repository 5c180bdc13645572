import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { loadConnectionSettings, type ConnectionSettings } from '../../src/client/connection.js';

/** Settings for the shared dev server with a task queue of the test's own, so tests never pick up each other's work. */
export function devServerSettings(): ConnectionSettings {
  return loadConnectionSettings(
    { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
    { address: inject('temporalAddress'), namespace: 'default', taskQueue: `arbor-test-${randomUUID()}` },
  );
}
