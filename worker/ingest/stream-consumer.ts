import type { Redis } from 'ioredis';
import { STREAM_FIELD, streamData } from '../../shared/contract/stream-codec.js';
import { sleep } from '../../shared/infra/async.js';
import { BackgroundLoop } from '../../shared/infra/background-loop.js';
import type { Logger } from '../../shared/infra/logger.js';
import { isTransientStoreError } from '../../shared/infra/store-errors.js';

/** The meeting and launch session a bot's own stream belongs to (its messages can't say otherwise). */
export interface StreamBinding {
  meetingId: number;
  sessionId: string;
}

/**
 * A stream to read, with the meeting its messages belong to; `binding: null` for the legacy shared
 * streams, whose messages name their own meeting (only bots launched by older workers write there).
 */
export interface BoundStream {
  stream: string;
  binding: StreamBinding | null;
}

export interface StreamMessage {
  id: string;
  /** The message's `data` field (undefined when the message has none). */
  data: string | undefined;
  /** The stream it came through, and what that stream is bound to. */
  stream: string;
  binding: StreamBinding | null;
}

/** A message that can never be applied, and why. */
export interface DeadLetter {
  message: StreamMessage;
  reason: string;
}

/**
 * Applies a batch and says which messages can never be applied. A batch holds messages of several
 * streams, each stream's in its order (ids may repeat between streams: a message is the object, not
 * its id). Everything it returns without throwing is acknowledged: the handler must have committed
 * its writes first. Throwing leaves the whole batch pending, to be retried.
 */
export type BatchHandler = (messages: StreamMessage[]) => Promise<DeadLetter[]>;

export interface StreamConsumerOptions {
  redis: Redis;
  /**
   * What the consumer reads, asked before every read (bots come and go); the answer may be a moment
   * old unless `fresh` is asked for.
   */
  streams: (fresh?: boolean) => Promise<BoundStream[]>;
  /** Names the consumer in logs (e.g. the kind of stream). */
  name: string;
  group: string;
  consumer: string;
  deadLetterStream: string;
  handler: BatchHandler;
  log: Logger;
  batchSize?: number;
  blockMs?: number;
  /** Pending messages of a consumer idle this long are taken over (its worker died). */
  claimIdleMs?: number;
  /**
   * The least time between the starts of two reads that found less than a batch (0: none), so a
   * trickle of messages is read a few at a time rather than one read each.
   */
  paceMs?: number;
  /** A message delivered this many times without success goes to the dead-letter stream. */
  maxDeliveries?: number;
  /**
   * Delete messages from the stream once acknowledged (bulk data nobody reads again, such as
   * recording chunks); otherwise they stay for audits.
   */
  deleteAcknowledged?: boolean;
}

/** A consumer of one fixed stream whose messages name their own meeting. */
export function fixedStream(stream: string): () => Promise<BoundStream[]> {
  return () => Promise.resolve([{ stream, binding: null }]);
}

/** XPENDING's extended form: one message each. */
type PendingEntry = [id: string, owner: string, idleMs: number, deliveries: number];

/** How many streams' pending messages are asked about in one round trip. */
const CLAIM_CHECK_SLICE = 500;

type XReadGroupReply = Array<[stream: string, entries: Array<[id: string, fields: string[]]>]> | null;

/**
 * One consumer of a Redis Streams consumer group: at-least-once, acknowledged only after the
 * handler's commit, with take-over of messages left pending by dead consumers and a dead-letter
 * stream for messages that can never be applied, so one bad message never blocks the rest.
 */
export class StreamConsumer extends BackgroundLoop {
  private readonly batchSize: number;
  /** Streams whose consumer group is known to exist, with their binding. */
  private readonly grouped = new Map<string, StreamBinding | null>();
  private readonly blockMs: number;
  private readonly claimIdleMs: number;
  private readonly maxDeliveries: number;
  private readonly paceMs: number;
  private lastClaimAt = 0;

  constructor(private readonly options: StreamConsumerOptions) {
    super();
    this.batchSize = options.batchSize ?? 200;
    this.blockMs = options.blockMs ?? 1000;
    this.claimIdleMs = options.claimIdleMs ?? 30_000;
    this.maxDeliveries = options.maxDeliveries ?? 5;
    this.paceMs = options.paceMs ?? 0;
  }

  /** The streams to read now, each with its consumer group created (from the first entry). */
  async refresh(fresh = false): Promise<BoundStream[]> {
    const streams = await this.options.streams(fresh);
    const current = new Set(streams.map(({ stream }) => stream));
    for (const stream of this.grouped.keys()) if (!current.has(stream)) this.grouped.delete(stream);
    for (const { stream, binding } of streams) {
      if (this.grouped.has(stream)) continue;
      try {
        await this.options.redis.xgroup('CREATE', stream, this.options.group, '0', 'MKSTREAM');
      } catch (error) {
        if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
      }
      this.grouped.set(stream, binding);
    }
    return streams;
  }

  /** Reads and applies until the streams have nothing new for this group (used by tests and shutdown). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const applied = (await this.pass('0', undefined, true)) + (await this.pass('>', 0, true));
      total += applied;
      if (applied === 0) return total;
    }
  }

  /** Runs until stopped; stop() waits for the batch in hand to be committed and acknowledged. */
  protected async run(): Promise<void> {
    const { log } = this.options;
    while (this.running) {
      try {
        // Our own pending first (a previous run of this consumer crashed mid-batch), then new ones.
        while (this.running && (await this.pass('0')) > 0) {}
        while (this.running) {
          await this.claimAbandoned();
          const startedAt = Date.now();
          const applied = await this.pass('>', this.blockMs);
          const rest = startedAt + this.paceMs - Date.now();
          if (applied > 0 && applied < this.batchSize && rest > 0 && this.running) await sleep(rest);
        }
      } catch (error) {
        log.error({ err: error, consumer: this.options.name }, 'stream consumer failed; retrying');
        await sleep(1000);
      }
    }
  }

  /**
   * Reads one batch from `fromId` ('0' = our pending, '>' = new) of every stream and applies what
   * they brought together, in batches of `batchSize`. Returns how many messages it applied.
   */
  private async pass(fromId: '0' | '>', blockMs?: number, fresh = false): Promise<number> {
    const { redis, group, consumer } = this.options;
    const streams = await this.refresh(fresh);
    if (streams.length === 0) {
      if (blockMs) await sleep(blockMs);
      return 0;
    }
    const args: Array<string | number> = ['GROUP', group, consumer, 'COUNT', this.batchSize];
    if (blockMs !== undefined && blockMs > 0) args.push('BLOCK', blockMs);
    args.push('STREAMS', ...streams.map(({ stream }) => stream), ...streams.map(() => fromId));
    let reply: XReadGroupReply;
    try {
      reply = (await (redis.xreadgroup as (...a: Array<string | number>) => Promise<unknown>)(
        ...args,
      )) as XReadGroupReply;
    } catch (error) {
      // A stream removed meanwhile (its bot ended long ago): read the list again.
      if (String((error as Error).message).includes('NOGROUP')) {
        this.grouped.clear();
        return 0;
      }
      throw error;
    }
    // What every stream had, in batches that mix streams (one transaction for many bots rather than
    // one each: a worker reads hundreds of bots' streams and each commit waits for the disk).
    const messages: StreamMessage[] = [];
    for (const [stream, entries] of reply ?? []) {
      const binding = this.grouped.get(stream) ?? null;
      for (const [id, fields] of entries) messages.push({ id, data: streamData(fields), stream, binding });
    }
    for (let from = 0; from < messages.length; from += this.batchSize) {
      await this.apply(messages.slice(from, from + this.batchSize));
    }
    return messages.length;
  }

  private async apply(messages: StreamMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const deadLetters = await this.applyIsolatingPoison(messages);
    await this.acknowledge(messages, deadLetters);
  }

  /**
   * When a batch fails because the store is unavailable (Postgres down or restarting), the whole
   * batch stays pending for a retry. Otherwise its messages are retried one by one: if some succeed,
   * the store is fine and the ones that still fail can never be applied, so they are dead-lettered.
   * If all fail, or one fails because the store went away meanwhile, the batch stays pending: a
   * message is never dead-lettered for an outage.
   */
  private async applyIsolatingPoison(messages: StreamMessage[]): Promise<DeadLetter[]> {
    try {
      return await this.options.handler(messages);
    } catch (batchError) {
      if (messages.length === 1 || isTransientStoreError(batchError)) throw batchError;
      const deadLetters: DeadLetter[] = [];
      const failed: DeadLetter[] = [];
      for (const message of messages) {
        try {
          deadLetters.push(...(await this.options.handler([message])));
        } catch (error) {
          if (isTransientStoreError(error)) throw error;
          failed.push({
            message,
            reason: `not applicable: ${(error as Error).message}`.slice(0, 500),
          });
        }
      }
      if (failed.length === messages.length) throw batchError;
      return [...deadLetters, ...failed];
    }
  }

  /** Dead-letters what must be, then acknowledges every message of the batch, in one round trip. */
  private async acknowledge(messages: StreamMessage[], deadLetters: DeadLetter[]): Promise<void> {
    const { redis, group, deadLetterStream, log } = this.options;
    if (messages.length === 0) return;
    const pipeline = redis.pipeline();
    for (const { message, reason } of deadLetters) {
      pipeline.xadd(
        deadLetterStream,
        'MAXLEN',
        '~',
        100_000,
        '*',
        'stream',
        message.stream,
        'id',
        message.id,
        'reason',
        reason,
        STREAM_FIELD,
        message.data ?? '',
      );
    }
    const idsByStream = new Map<string, string[]>();
    for (const { stream, id } of messages) {
      const ids = idsByStream.get(stream);
      if (ids) ids.push(id);
      else idsByStream.set(stream, [id]);
    }
    for (const [stream, ids] of idsByStream) {
      pipeline.xack(stream, group, ...ids);
      if (this.options.deleteAcknowledged) pipeline.xdel(stream, ...ids);
    }
    const results = (await pipeline.exec()) ?? [];
    const failure = results.find(([error]) => error);
    if (failure) throw failure[0];
    if (deadLetters.length > 0) {
      log.warn(
        {
          deadLetters: deadLetters.map(({ message, reason }) => ({
            stream: message.stream,
            id: message.id,
            reason,
          })),
        },
        'messages sent to the dead-letter stream',
      );
    }
  }

  /**
   * Takes over messages another consumer left pending too long. A message that keeps failing is
   * dead-lettered after `maxDeliveries` attempts instead of blocking its stream forever.
   */
  private async claimAbandoned(): Promise<void> {
    const now = Date.now();
    if (now - this.lastClaimAt < Math.min(this.claimIdleMs, 5000)) return;
    this.lastClaimAt = now;
    const streams = [...this.grouped];
    // One round trip asks every stream of a slice (a worker reads hundreds); most have nothing.
    for (let from = 0; from < streams.length && this.running; from += CLAIM_CHECK_SLICE) {
      const slice = streams.slice(from, from + CLAIM_CHECK_SLICE);
      const pipeline = this.options.redis.pipeline();
      for (const [stream] of slice) {
        pipeline.xpending(stream, this.options.group, 'IDLE', this.claimIdleMs, '-', '+', this.batchSize);
      }
      const replies = (await pipeline.exec()) ?? [];
      for (const [index, [stream, binding]] of slice.entries()) {
        const [error, pending] = replies[index] ?? [null, []];
        // A stream removed meanwhile (its bot ended long ago) has nothing to take over.
        if (error) {
          if (String(error.message).includes('NOGROUP')) continue;
          throw error;
        }
        if (!this.running) return;
        await this.claimAbandonedOf(stream, binding, pending as PendingEntry[]);
      }
    }
  }

  private async claimAbandonedOf(
    stream: string,
    binding: StreamBinding | null,
    pending: PendingEntry[],
  ): Promise<void> {
    const { redis, group, consumer } = this.options;
    if (pending.length === 0) return;
    const toMessages = (claimed: Array<[string, string[]] | null>): StreamMessage[] =>
      claimed
        .filter((entry) => entry !== null)
        .map(([id, fields]) => ({ id, data: streamData(fields), stream, binding }));
    const poison = pending.filter(([, , , deliveries]) => deliveries >= this.maxDeliveries).map(([id]) => id);
    const claimable = pending
      .filter(([, , , deliveries]) => deliveries < this.maxDeliveries)
      .map(([id]) => id);
    if (poison.length > 0) {
      const messages = toMessages(
        (await redis.xclaim(stream, group, consumer, 0, ...poison)) as Array<[string, string[]] | null>,
      );
      const reason = `not applied after ${this.maxDeliveries} deliveries`;
      if (messages.length > 0)
        await this.acknowledge(
          messages,
          messages.map((message) => ({ message, reason })),
        );
    }
    if (claimable.length > 0) {
      const messages = toMessages(
        (await redis.xclaim(stream, group, consumer, this.claimIdleMs, ...claimable)) as Array<
          [string, string[]] | null
        >,
      );
      if (messages.length > 0) await this.apply(messages);
    }
  }
}
