import { Command, InvalidArgumentError } from 'commander';
import { AesGcmCodec } from '../../codec/aes-gcm-codec.js';
import { startCodecServer } from '../../codec/codec-server.js';
import { encryptionKeysFromEnv, encryptionKeysVariable } from '../../codec/encryption-keys.js';
import { UsageError } from '../usage-error.js';

interface CodecServerFlags {
  host: string;
  port: number;
  uiOrigin?: string[];
}

export const codecServerTokenVariable = 'ARBOR_CODEC_SERVER_TOKEN';
const defaultOrigins = ['http://localhost:8233', 'http://127.0.0.1:8233'];

export const codecServerCommand = new Command('codec-server')
  .description(
    "serve Temporal's codec endpoints (/encode, /decode) with the keys of ARBOR_ENCRYPTION_KEYS, for the Web UI and the Temporal CLI",
  )
  .option('--host <ip>', 'address to bind (default: loopback only)', '127.0.0.1')
  .option('--port <port>', 'port to listen on', parsePort, 8888)
  .option(
    '--ui-origin <origin>',
    `a Web UI origin allowed to call it from a browser (repeatable; default ${defaultOrigins.join(' and ')}; ARBOR_CODEC_SERVER_ORIGINS)`,
    (value: string, list: string[] = []) => [...list, value],
  )
  .action(async (flags: CodecServerFlags) => {
    const keys = encryptionKeysFromEnv();
    if (keys.length === 0)
      throw new UsageError(`${encryptionKeysVariable} is not set: the codec server needs the keys the workers encrypt with.`);
    const token = process.env[codecServerTokenVariable]?.trim() || undefined;
    if (!token && !isLoopback(flags.host)) {
      throw new UsageError(
        `--host ${flags.host} is reachable from other machines: set ${codecServerTokenVariable} so that requests need a token.`,
      );
    }
    const fromEnv = process.env.ARBOR_CODEC_SERVER_ORIGINS?.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean);
    const origins = flags.uiOrigin ?? (fromEnv && fromEnv.length > 0 ? fromEnv : defaultOrigins);
    const server = await startCodecServer({
      codec: new AesGcmCodec(keys),
      host: flags.host,
      port: flags.port,
      allowedOrigins: origins,
      ...(token ? { token } : {}),
    });
    process.stderr.write(
      `Arbor codec server on ${server.url} (keys ${keys.map((key) => key.id).join(', ')}; Web UI origins ${origins.join(', ')}; ` +
        `${token ? `requests need the ${codecServerTokenVariable} token` : 'no token asked'}). Ctrl-C stops it.\n`,
    );
    process.stdout.write(`${server.url}\n`);
    await new Promise<void>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve));
    await server.close();
  });

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('give a port number from 0 to 65535.');
  return port;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
