import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { AesGcmCodec } from '../../src/codec/aes-gcm-codec.js';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';
import { memoryStoreId } from '../../src/shared/tools/memory.js';
import { titleKey } from '../../src/shared/search-attributes.js';
import { loadConnectionSettings, type ConnectionSettings } from '../../src/client/connection.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { encryptionKeyIdsIn, secretsIn } from '../support/history-texts.js';
import { runCli } from '../support/processes.js';
import { listTree } from '../../src/client/access/tree-listing.js';
import type { SessionSummary } from '../../src/client/session-list.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { temporalOk } from '../support/temporal-cli.js';
import { restartableWorker } from '../support/restartable-worker.js';

const k1 = `k1:${randomBytes(32).toString('base64')}`;
const k2 = `k2:${randomBytes(32).toString('base64')}`;
const codecToken = `codec-${randomUUID()}`;

/** A session whose instruction, tool result, memory and answer are each a distinctive sentence. */
function secretSession(model: ScriptedModel, tag: string) {
  const secrets = {
    instruction: `The violet heron counts ${tag} lanterns at dawn.`,
    todo: `Polish the brass astrolabe ${tag} before the eclipse.`,
    memory: `The vault code of ${tag} is hidden under the fig tree.`,
    answer: `Your heron ${tag} is safe with me.`,
  };
  model.script(
    secrets.instruction,
    {
      toolCalls: [
        { name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: secrets.todo, status: 'in_progress' }] }) },
        { name: 'saveMemory', arguments: JSON.stringify({ content: secrets.memory }) },
      ],
    },
    { content: secrets.answer },
    { content: `Still here for heron ${tag}.` },
  );
  return secrets;
}

describe('encrypted payloads (dev server, in-process workers, fake model, Temporal CLI)', () => {
  const fake = new FakeOpenAI();
  const model = new ScriptedModel(fake);
  // A server of its own: the encrypted sessions would otherwise be in every other test's listing of the shared one.
  let server: DevServer;
  let base: ConnectionSettings;
  const owner = `enc-${randomUUID().slice(0, 8)}`;
  const withKeys = (keys: string): ConnectionSettings => ({ ...base, encryptionKeys: parseEncryptionKeys(keys) });
  let codecServer: CodecServer;

  const worker = restartableWorker('sk-encryption', fake);
  const startWorker = worker.start;
  const stopWorker = worker.stop;

  const rawHistory = (workflowId: string) =>
    temporalOk(['workflow', 'show', '--workflow-id', workflowId, '--output', 'json'], undefined, base.address);

  async function runSecretSession(client: ArborClient, tag: string, title: string | undefined = 'Heron') {
    const secrets = secretSession(model, tag);
    const session = await client.startSession({ instruction: secrets.instruction, owner, ...(title ? { title } : {}) });
    const idle = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(idle.last_message?.content).toBe(secrets.answer);
    return { session, secrets: Object.values(secrets) };
  }

  beforeAll(async () => {
    server = await startDevServer({ cliPath: inject('temporalCliPath'), port: 0, ui: false });
    base = loadConnectionSettings(
      { TEMPORAL_CONFIG_FILE: '/nonexistent/arbor-test.toml' },
      { address: server.address, namespace: 'default', taskQueue: `encryption-${randomUUID()}` },
    );
    await fake.start();
    codecServer = await startCodecServer({
      codec: new AesGcmCodec(parseEncryptionKeys(`${k2},${k1}`)),
      port: 0,
      token: codecToken,
      allowedOrigins: ['http://ui.example'],
    });
  });

  afterAll(async () => {
    await stopWorker();
    await codecServer?.close();
    await fake.stop();
    await server?.stop();
  });

  let plain: Awaited<ReturnType<typeof runSecretSession>>;
  let encrypted: Awaited<ReturnType<typeof runSecretSession>>;

  it('keeps a session plain with no key configured: its secrets are in the raw history', async () => {
    await startWorker(base);
    const client = await ArborClient.fromSettings(base);
    plain = await runSecretSession(client, `plain-${randomUUID().slice(0, 6)}`);
    await client.close();
    expect(secretsIn(await rawHistory(plain.session.id), plain.secrets)).toEqual(plain.secrets);
  });

  it('writes no byte of the instruction, tool result, memory or answer to history with a key, nor to the memory store', async () => {
    await startWorker(withKeys(k1));
    const client = await ArborClient.fromSettings(withKeys(k1));
    encrypted = await runSecretSession(client, `enc-${randomUUID().slice(0, 6)}`);
    // The SDK, holding the key, reads it all back.
    const transcript = JSON.stringify(await encrypted.session.transcript());
    for (const secret of encrypted.secrets) expect(transcript).toContain(secret);
    await client.close();

    const history = await rawHistory(encrypted.session.id);
    expect(secretsIn(history, encrypted.secrets)).toEqual([]);
    expect(encryptionKeyIdsIn(history)).toEqual(['k1']);
    const memories = await rawHistory(memoryStoreId(owner));
    expect(secretsIn(memories, encrypted.secrets)).toEqual([]);
    // The plain session's memory, written before the key, is still there in the clear: nothing rewrites history.
    expect(secretsIn(memories, plain.secrets)).toContain(plain.secrets[2]);
  });

  it('keeps even a title made from the instruction out of the search attributes with neutral titles', async () => {
    const client = await ArborClient.fromSettings(withKeys(k1), { neutralTitles: true });
    const { session, secrets } = await runSecretSession(client, `neutral-${randomUUID().slice(0, 6)}`, undefined);
    // The session keeps its own title (encrypted, in its state); only Temporal's visible fields get the neutral one.
    expect((await session.snapshot()).title).not.toBe('Arbor session');
    const described = await client.temporal.workflow.getHandle(session.id).describe();
    expect(described.typedSearchAttributes.get(titleKey)).toBe('Arbor session');
    await client.close();
    expect(secretsIn(await rawHistory(session.id), secrets)).toEqual([]);
  });

  it('gives the sub-agents of a session with neutral titles the neutral summary and ArborTitle, their titles kept in their state', async () => {
    const client = await ArborClient.fromSettings(withKeys(k1), { neutralTitles: true });
    const tag = randomUUID().slice(0, 6);
    const rootInstruction = `The violet heron sends a scout ${tag}.`;
    const childTitle = `Scout the marsh ${tag}`;
    const childInstruction = `Scout the marsh ${tag} for herons.`;
    model
      .script(
        rootInstruction,
        {
          toolCalls: [{ name: 'subAgent', arguments: JSON.stringify({ title: childTitle, instruction: childInstruction, mode: 'sync' }) }],
        },
        { content: `Scouted ${tag}.` },
      )
      .script(childInstruction, { content: `Marsh ${tag} is clear.` });
    const session = await client.startSession({ instruction: rootInstruction, owner });
    expect((await session.waitUntilIdle({ timeoutMs: 60_000 })).last_message?.content).toBe(`Scouted ${tag}.`);
    const childId = (await session.snapshot()).children[0]!.sub_session_id;
    expect((await client.session(childId).snapshot()).title).toBe(childTitle);
    const described = await client.temporal.workflow.getHandle(childId).describe();
    expect(described.typedSearchAttributes.get(titleKey)).toBe('Arbor session');
    expect(await described.staticSummary()).toBe('Arbor session');
    await client.close();
    for (const id of [session.id, childId]) expect(secretsIn(await rawHistory(id), [childTitle, tag])).toEqual([]);
  });

  it('shows the decrypted history through the codec server to the Temporal CLI, with the token it asks for', async () => {
    const endpoint = ['--codec-endpoint', codecServer.url];
    const decoded = await temporalOk(
      ['workflow', 'show', '--workflow-id', encrypted.session.id, '--output', 'json', ...endpoint, '--codec-auth', `Bearer ${codecToken}`],
      undefined,
      base.address,
    );
    expect(secretsIn(decoded, encrypted.secrets)).toEqual(encrypted.secrets);
  });

  it('answers CORS preflights for the configured Web UI origin only, and refuses a request without the token', async () => {
    const preflight = await fetch(`${codecServer.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://ui.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://ui.example');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const stranger = await fetch(`${codecServer.url}/decode`, { method: 'OPTIONS', headers: { Origin: 'http://evil.example' } });
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const body = JSON.stringify({
      payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') }],
    });
    const anonymous = await fetch(`${codecServer.url}/encode`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    expect(anonymous.status).toBe(401);
    const roundTrip = async (path: string, payloads: string): Promise<{ payloads: { metadata: Record<string, string>; data: string }[] }> =>
      (
        await fetch(`${codecServer.url}${path}`, {
          method: 'POST',
          body: payloads,
          headers: { Authorization: `Bearer ${codecToken}`, 'X-Namespace': 'default' },
        })
      ).json() as never;
    const sealed = await roundTrip('/encode', body);
    expect(Buffer.from(sealed.payloads[0]!.metadata['encryption-key-id']!, 'base64').toString()).toBe('k2');
    expect(await roundTrip('/default/decode', JSON.stringify(sealed))).toEqual(JSON.parse(body));
  });

  it('reads sessions written with the old key and plain ones after a new key is added, writing new payloads with it', async () => {
    await startWorker(withKeys(`${k2},${k1}`));
    const client = await ArborClient.fromSettings(withKeys(`${k2},${k1}`));
    for (const { session } of [encrypted, plain]) {
      const messageId = await client.session(session.id).send('Are you still there?');
      const idle = await client.session(session.id).waitUntilIdle({ messageId, timeoutMs: 60_000 });
      expect(idle.last_message?.content).toMatch(/^Still here for heron/);
    }
    await client.close();
    expect(encryptionKeyIdsIn(await rawHistory(encrypted.session.id))).toEqual(['k1', 'k2']);
    expect(encryptionKeyIdsIn(await rawHistory(plain.session.id))).toEqual(['k2']);
  });

  it('lists encrypted and plain sessions to a client without the key, marking the encrypted ones, in the SDK and arbor list', async () => {
    const env = { TEMPORAL_ADDRESS: base.address, ARBOR_TASK_QUEUE: base.taskQueue };
    const [json, table] = await Promise.all([runCli(['list', '--json'], env), runCli(['list'], env)]);
    const keyless = await ArborClient.fromSettings(base);
    const foreignKey = await ArborClient.fromSettings(withKeys(`k9:${randomBytes(32).toString('base64')}`));
    const keyed = await ArborClient.fromSettings(withKeys(`${k2},${k1}`));
    try {
      const listedBy = async (client: ArborClient) => new Map((await client.listSessions()).map((entry) => [entry.session_id, entry]));
      for (const listed of [await listedBy(keyless), await listedBy(foreignKey)]) {
        expect(listed.get(plain.session.id)).toMatchObject({ owner, title: 'Heron' });
        expect(listed.get(plain.session.id)).not.toHaveProperty('encrypted');
        expect(listed.get(encrypted.session.id)).toMatchObject({ owner: null, title: 'Heron', encrypted: true });
      }
      // The key's holder reads the owner, as before.
      const byKeyed = await listedBy(keyed);
      expect(byKeyed.get(encrypted.session.id)).toMatchObject({ owner, title: 'Heron' });
      expect(byKeyed.get(encrypted.session.id)).not.toHaveProperty('encrypted');
      // A session named by the start of its id, and a tree walk's listing, find an encrypted session too.
      expect((await keyless.findSession(encrypted.session.id.slice(0, 13))).id).toBe(encrypted.session.id);
      expect([...((await listTree(keyless.temporal, encrypted.session.id)) ?? new Map()).keys()]).toEqual([encrypted.session.id]);
    } finally {
      await Promise.all([keyless.close(), foreignKey.close(), keyed.close()]);
    }

    expect(json.code, json.stderr).toBe(0);
    const cliListed = new Map(
      (JSON.parse(json.stdout) as { sessions: SessionSummary[] }).sessions.map((entry) => [entry.session_id, entry]),
    );
    expect(cliListed.get(plain.session.id)).toMatchObject({ owner });
    expect(cliListed.get(encrypted.session.id)).toMatchObject({ owner: null, encrypted: true });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n').find((line) => line.startsWith(encrypted.session.id))).toContain('(encrypted)');
    expect(table.stdout.split('\n').find((line) => line.startsWith(plain.session.id))).toContain(owner);
  });

  it("encrypts an automation's prompt in its schedule, and a client without the key lists automations past it", async () => {
    const keyed = await ArborClient.fromSettings(withKeys(`${k2},${k1}`));
    const keyless = await ArborClient.fromSettings(base);
    try {
      const prompt = `Count the violet herons ${randomUUID().slice(0, 6)} at noon.`;
      const created = await keyed
        .automations(owner)
        .create({ title: 'Heron count', prompt, timezone: 'Europe/Berlin', start_local: '2099-01-01T12:00', recurrence: 'daily' });
      const raw = await temporalOk(
        ['schedule', 'describe', '--schedule-id', created.automation_id, '--output', 'json'],
        undefined,
        base.address,
      );
      expect(raw).toContain(created.automation_id);
      expect(secretsIn(raw, [prompt])).toEqual([]);
      expect((await keyed.automations(owner).list()).map((automation) => automation.prompt)).toEqual([prompt]);
      // Its owner is in the encrypted memo: unreadable here, so it is nobody's this client can name.
      expect(await keyless.automations(owner).list()).toEqual([]);
    } finally {
      await Promise.all([keyed.close(), keyless.close()]);
    }
  });

  it('names no title in the schedule of an automation made with neutral titles, nor in what its runs show Temporal', async () => {
    await startWorker(withKeys(k1));
    const neutral = await ArborClient.fromSettings(withKeys(k1), { neutralTitles: true });
    try {
      const tag = randomUUID().slice(0, 6);
      const title = `Heron tally ${tag}`;
      const prompt = `Tally the violet herons ${tag}.`;
      model.script(prompt, { content: `Tallied ${tag}.` });
      const automations = neutral.automations(owner);
      const created = await automations.create({
        title,
        prompt,
        timezone: 'Europe/Berlin',
        start_local: '2099-01-01T12:00',
        recurrence: 'daily',
      });
      expect(created.title).toBe(title);
      const raw = await temporalOk(
        ['schedule', 'describe', '--schedule-id', created.automation_id, '--output', 'json'],
        undefined,
        base.address,
      );
      expect(secretsIn(raw, [title, tag])).toEqual([]);

      const { run_id } = await automations.run(created.automation_id);
      expect((await automations.waitRun(run_id)).final_message).toBe(`Tallied ${tag}.`);
      const described = await neutral.temporal.workflow.getHandle(run_id).describe();
      expect(described.typedSearchAttributes.get(titleKey)).toBe('Arbor session');
      expect(await described.staticSummary()).toBe('Arbor session');
      expect(secretsIn(await rawHistory(run_id), [title, tag])).toEqual([]);
      // Kept neutral when a client without the option changes it.
      const plainClient = await ArborClient.fromSettings(withKeys(k1));
      await plainClient.automations(owner).update({ automation_id: created.automation_id, prompt: `${prompt} Again.` });
      await plainClient.close();
      const updated = await temporalOk(
        ['schedule', 'describe', '--schedule-id', created.automation_id, '--output', 'json'],
        undefined,
        base.address,
      );
      expect(secretsIn(updated, [title, tag])).toEqual([]);
    } finally {
      await neutral.close();
    }
  });

  it('says with arbor doctor whether payloads are encrypted, and refuses a bad key list at startup', async () => {
    const env = { TEMPORAL_ADDRESS: base.address, ARBOR_TASK_QUEUE: base.taskQueue };
    // Three CLI processes at once: each takes seconds to start on a loaded machine.
    const [off, on, bad] = await Promise.all([
      runCli(['doctor', '--json', '--no-install'], env),
      runCli(['doctor', '--no-install'], { ...env, ARBOR_ENCRYPTION_KEYS: `${k2},${k1}` }),
      runCli(['list'], { ...env, ARBOR_ENCRYPTION_KEYS: `k1:${randomBytes(16).toString('base64')}` }),
    ]);
    expect(JSON.parse(off.stdout).encryption).toEqual({ payloads: 'not encrypted', key_ids: [], encrypting_key: null });
    expect(on.stdout).toContain('Payloads: encrypted (AES-256-GCM) with key k2; keys that decrypt: k2, k1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('arbor: ARBOR_ENCRYPTION_KEYS: entry 1 (key "k1") is 16 bytes; AES-256 needs 32 bytes');
  });
});
