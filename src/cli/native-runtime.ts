import type { LogLevel } from '@temporalio/worker';

const logLevels = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
let installed: Promise<void> | undefined;

/**
 * Installs Temporal's native runtime quietly (ARBOR_LOG_LEVEL, default WARN), once, before the CLI's first worker.
 * Loaded only by the commands that run a worker: the worker package is the larger part of the CLI's start-up, and a
 * command that only talks to the server (list, show, send) has no use for it.
 */
export function installQuietRuntime(): Promise<void> {
  installed ??= import('@temporalio/worker').then(({ DefaultLogger, makeTelemetryFilterString, Runtime }) => {
    const requested = process.env.ARBOR_LOG_LEVEL?.toUpperCase();
    const level: LogLevel = (logLevels as readonly string[]).includes(requested ?? '') ? (requested as LogLevel) : 'WARN';
    Runtime.install({
      // Each command decides what a signal means (drain the worker, stop the embedded server, or just exit).
      shutdownSignals: [],
      logger: new DefaultLogger(level),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level === 'WARN' ? 'ERROR' : level }), forward: {} } },
    });
  });
  return installed;
}
