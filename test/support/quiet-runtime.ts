/** Keeps the SDK's per-task INFO logs out of test output; warnings and errors still show. */
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';

Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
});
