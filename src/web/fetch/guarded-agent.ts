/**
 * An undici Agent that can only connect to addresses the address policy permits.
 *
 * The check sits in the connection itself: IP literals are checked by the connector, and host names are checked
 * inside the DNS lookup that the socket uses, after resolution and before the lookup returns. Every resolved address
 * must pass, so the address checked is the address connected to and DNS rebinding cannot slip a private address in
 * between a check and the connection. The agent is used explicitly as the dispatcher, so proxy environment variables
 * (HTTP_PROXY, HTTPS_PROXY, ...) and any global dispatcher play no part.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { addressRefusal, EMPTY_ALLOW_LIST, hostRefusal, isHostNameAllowed, type AllowList } from './address-policy.js';

/** Options the socket layer passes to a lookup function. */
export interface LookupOptions {
  family?: number | 'IPv4' | 'IPv6' | undefined;
  hints?: number | undefined;
  all?: boolean | undefined;
  order?: 'ipv4first' | 'ipv6first' | 'verbatim' | undefined;
  verbatim?: boolean | undefined;
}

export type LookupCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/**
 * A resolver in the style of `dns.lookup` with `all: true`: resolves a host name to every address.
 * Injectable so tests can make names resolve to private addresses, or change their answer between calls.
 */
export type LookupFunction = (hostname: string, options: LookupOptions & { all: true }, callback: LookupCallback) => void;

/** The system resolver (getaddrinfo through `dns.lookup`). */
export const systemLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, callback);
};

/** Raised (as the connection error) when the policy refuses a destination. No byte has been sent when it is. */
export class ForbiddenAddressError extends Error {
  readonly code = 'ERR_ARBOR_FORBIDDEN_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string | undefined,
    readonly reason: string,
  ) {
    super(
      address === undefined
        ? `Refusing to connect to ${host}: ${reason}`
        : address === host
          ? `Refusing to connect to ${host}: ${reason} address`
          : `Refusing to connect to ${host}: it resolves to ${address}, a ${reason} address`,
    );
    this.name = 'ForbiddenAddressError';
  }
}

/** Finds a ForbiddenAddressError in an error's cause chain (undici may wrap connection errors). */
export function findForbiddenAddressError(error: unknown): ForbiddenAddressError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof ForbiddenAddressError) return current;
    if (current instanceof AggregateError) {
      for (const inner of current.errors) {
        const found = findForbiddenAddressError(inner);
        if (found) return found;
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

type NodeLookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Wraps a resolver so that it refuses (with a ForbiddenAddressError) any name that resolves to at least one address
 * the policy forbids. Host names on the allow list skip the address check. Usable as `net.connect({ lookup })`.
 */
export function createGuardedLookup(allow: AllowList = EMPTY_ALLOW_LIST, resolve: LookupFunction = systemLookup) {
  return function guardedLookup(hostname: string, options: LookupOptions, callback: NodeLookupCallback): void {
    const nameAllowed = isHostNameAllowed(allow, hostname);
    const finish = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      // Always answer asynchronously, as the socket layer expects.
      process.nextTick(() => {
        if (error) {
          callback(error, options.all ? [] : '', undefined);
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    const query: LookupOptions & { all: true } = { all: true };
    if (options.family !== undefined) query.family = options.family;
    if (options.hints !== undefined) query.hints = options.hints;
    if (options.order !== undefined) query.order = options.order;
    try {
      resolve(hostname, query, (error, addresses) => {
        if (error) return finish(error, []);
        const list = Array.isArray(addresses) ? addresses : [];
        if (list.length === 0) {
          const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          notFound.code = 'ENOTFOUND';
          return finish(notFound, []);
        }
        if (!nameAllowed) {
          for (const entry of list) {
            const reason = addressRefusal(entry.address, allow);
            if (reason !== null) return finish(new ForbiddenAddressError(hostname, entry.address, reason), []);
          }
        }
        finish(null, list);
      });
    } catch (error) {
      finish(error as NodeJS.ErrnoException, []);
    }
  };
}

export interface GuardedAgentOptions {
  allow?: AllowList;
  lookup?: LookupFunction;
  /** Time allowed for DNS, TCP and TLS set-up of one connection. Default 10 s. */
  connectTimeoutMs?: number;
}

/**
 * An undici Agent whose every connection is checked against the address policy:
 * IP literals before the socket is created, names inside the socket's own DNS lookup, and, as a last line,
 * the socket's remote address once connected.
 */
export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  const allow = options.allow ?? EMPTY_ALLOW_LIST;
  const lookup = createGuardedLookup(allow, options.lookup ?? systemLookup);
  const base = buildConnector({ lookup, timeout: options.connectTimeoutMs ?? 10_000 } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname;
    // Literal addresses never reach a lookup function, so they are checked here; names get a first check on the name.
    const refusal = hostRefusal(host, allow);
    if (refusal !== null) {
      process.nextTick(() => callback(new ForbiddenAddressError(host, isIP(host) ? host : undefined, refusal), null));
      return;
    }
    const nameAllowed = isIP(host) === 0 && isHostNameAllowed(allow, host);
    base(connectOptions, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      const remote = (socket as Socket).remoteAddress;
      const late = nameAllowed ? null : remote === undefined ? 'unknown remote' : addressRefusal(remote, allow);
      if (late !== null) {
        socket.destroy();
        callback(new ForbiddenAddressError(host, remote, late), null);
        return;
      }
      callback(null, socket);
    });
  };
  return new Agent({ connect, connections: 4, pipelining: 1 });
}
