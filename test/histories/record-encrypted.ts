/**
 * Records the committed encrypted history the replay test runs with the fixed test key
 * (test/support/test-encryption-key.ts): `npx tsx test/histories/record-encrypted.ts`. Like record.ts, run it only
 * when a workflow change is meant to break running sessions.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import { SessionHandle } from '../../src/client/session-handle.js';
import { dataConverterOption } from '../../src/codec/data-converter.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';
import { sessionWorkflowType } from '../../src/shared/session.js';
import { parentSessionIdKey, rootSessionIdKey, statusKey, titleKey } from '../../src/shared/search-attributes.js';
import { locateBinaryPath } from '../../src/temporal/binaries.js';
import { workflowSourceWorkerOptions } from '../../src/worker/workflow-code.js';
import { testEncryptionKeys } from '../support/test-encryption-key.js';

const codec = dataConverterOption(parseEncryptionKeys(testEncryptionKeys));
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: { type: 'existing-path', path: await locateBinaryPath('cli') },
    searchAttributes: [rootSessionIdKey, parentSessionIdKey, statusKey, titleKey],
  },
  client: codec,
});
try {
  const taskQueue = 'record-encrypted';
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...workflowSourceWorkerOptions(),
    ...codec,
    activities: createActivities({ client: env.client, model: { defaultModel: 'demo', requestTimeoutMs: 5_000 }, skillsDir: false }),
  });
  await worker.runUntil(async () => {
    const workflowId = 'history-encrypted-demo';
    await env.client.workflow.start(sessionWorkflowType, {
      workflowId,
      taskQueue,
      args: [{ instruction: 'Plan the secret picnic of the silver otters.', title: 'Picnic' }],
    });
    const session = new SessionHandle(workflowId, env.client);
    await session.waitUntilIdle();
    const id = await session.send('And the dessert, please.');
    await session.waitUntilIdle({ messageId: id });
    await session.stop();
    await session.result();
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const folder = new URL(`./${sessionWorkflowType}/`, import.meta.url);
    await mkdir(folder, { recursive: true });
    await writeFile(fileURLToPath(new URL('encrypted-demo.json', folder)), `${historyToJSON(history)}\n`);
  });
} finally {
  await env.teardown();
}
