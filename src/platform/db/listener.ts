/**
 * One LISTEN connection per process for every NOTIFY channel on PostgreSQL (the revocation,
 * role and signing-key channels): a dedicated connection, outside the query pool, since a pooled
 * connection is handed to other queries and would drop its LISTENs. It connects with the first
 * subscription and closes with the last.
 *
 * Threat: a cache that keeps serving while its invalidations no longer arrive. So when the
 * connection breaks, every subscriber is told (`onLost`) at once, and nothing more reaches any of
 * them; a subscriber that listens again gets a new connection (PostgreSQL documents LISTEN and
 * NOTIFY per session: https://www.postgresql.org/docs/15/sql-listen.html).
 */
import pg from 'pg';
import { CONNECT_TIMEOUT_MS } from './unavailable.js';

/** One caller of `listen`. */
interface Subscriber {
  onNotify(payload: string): void;
  onLost?(): void;
}

/** The shared LISTEN connection of one store (see the module comment). */
export class SharedListener {
  private connecting: Promise<pg.Client> | undefined;
  private readonly channels = new Map<string, Set<Subscriber>>();

  /** @param url - the `postgres://` connection string of the store. */
  constructor(private readonly url: string) {}

  /**
   * Calls `onNotify` with the payload of each NOTIFY on `channel`; `onLost` once if the connection
   * breaks, after which nothing more arrives.
   * @returns a function that stops this subscription (the connection closes with the last one).
   * @throws the connection error when the listener cannot connect, or its LISTEN fails.
   */
  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    onLost?: () => void,
  ): Promise<() => Promise<void>> {
    const client = await this.connection();
    const subscriber: Subscriber = { onNotify, onLost };
    let subscribers = this.channels.get(channel);
    if (!subscribers) {
      subscribers = new Set();
      this.channels.set(channel, subscribers);
      try {
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (err) {
        if (subscribers.size === 0) this.channels.delete(channel);
        throw err;
      }
    }
    subscribers.add(subscriber);
    return () => this.unlisten(channel, subscriber, client);
  }

  /** Ends the connection without telling the subscribers (the store is closing). */
  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    this.channels.clear();
    await connecting?.then((client) => client.end()).catch(() => {});
  }

  /** The connection, opened (once, for concurrent callers) when there is none. */
  private connection(): Promise<pg.Client> {
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      const lost = () => this.lost(client);
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (msg) => {
        for (const s of this.channels.get(msg.channel) ?? []) s.onNotify(msg.payload ?? '');
      });
      try {
        await client.connect();
      } catch (err) {
        this.connecting = undefined;
        throw err;
      }
      return client;
    })();
    return this.connecting;
  }

  /** The connection broke: forget it and every subscription, and tell each subscriber once. */
  private lost(client: pg.Client): void {
    const current = this.connecting;
    void current?.then(
      (c) => {
        if (c !== client || this.connecting !== current) return;
        this.connecting = undefined;
        const subscribers = [...this.channels.values()].flatMap((set) => [...set]);
        this.channels.clear();
        for (const s of subscribers) s.onLost?.();
      },
      () => {},
    );
  }

  private async unlisten(channel: string, subscriber: Subscriber, client: pg.Client): Promise<void> {
    const subscribers = this.channels.get(channel);
    if (!subscribers?.delete(subscriber) || subscribers.size > 0) return; // lost already, or others still listen
    this.channels.delete(channel);
    if (this.channels.size > 0) {
      await client.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
      return;
    }
    // The last subscription: close the connection (forgotten first, so that its end is no loss).
    this.connecting = undefined;
    await client.end().catch(() => {});
  }
}
