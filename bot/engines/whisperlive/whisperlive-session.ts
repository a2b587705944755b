import { WebSocket } from 'ws';
import type { EngineLogger } from '../engine-logger.js';
import {
  type ClientConfig,
  END_OF_AUDIO,
  type ServerMessage,
  serverMessage,
} from './whisperlive-protocol.js';

export interface WhisperLiveSessionOptions {
  url: string;
  config: ClientConfig;
  /** How long connecting and the server's SERVER_READY may take. */
  readyTimeoutMs: number;
  /** How long the server may take to send its last segments after END_OF_AUDIO. */
  finishTimeoutMs: number;
  log: EngineLogger;
  onMessage(message: ServerMessage): void;
  /** The connection ended without finish() or close() asking for it. */
  onLost(error: Error): void;
}

/** One WebSocket connection to a WhisperLive-compatible server, from config to END_OF_AUDIO. */
export class WhisperLiveSession {
  private ending = false;
  private closed: Promise<void>;

  private constructor(
    private readonly socket: WebSocket,
    private readonly options: WhisperLiveSessionOptions,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** Resolves once the server said SERVER_READY; rejects with the server's reason otherwise. */
  static connect(options: WhisperLiveSessionOptions): Promise<WhisperLiveSession> {
    const socket = new WebSocket(options.url, { handshakeTimeout: options.readyTimeoutMs });
    const session = new WhisperLiveSession(socket, options);
    return new Promise((resolve, reject) => {
      let settled = false;
      let ready = false;
      const fail = (reason: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.terminate();
        reject(new Error(`whisperlive server at ${options.url}: ${reason}`));
      };
      const timer = setTimeout(
        () => fail(`not ready within ${options.readyTimeoutMs} ms`),
        options.readyTimeoutMs,
      );
      socket.on('error', (error) => {
        if (ready) options.log.warn({ err: error }, 'whisperlive connection error');
        else fail(error.message);
      });
      socket.once('open', () => socket.send(JSON.stringify(options.config)));
      socket.on('close', (code) => {
        if (!ready) fail(`closed the connection before it was ready (code ${code})`);
        else if (!session.ending)
          options.onLost(
            new Error(`whisperlive server at ${options.url} closed the connection (code ${code})`),
          );
      });
      socket.on('message', (data, isBinary) => {
        const message = isBinary ? null : parse(data.toString());
        if (!message || (message.uid !== undefined && message.uid !== options.config.uid)) return;
        if (ready) {
          session.receive(message);
        } else if (message.message === 'SERVER_READY') {
          ready = true;
          settled = true;
          clearTimeout(timer);
          resolve(session);
        } else if (message.status === 'WAIT') {
          fail(`server is full (wait about ${message.message} minutes)`);
        } else if (message.status === 'ERROR') {
          fail(`refused: ${message.message}`);
        }
      });
    });
  }

  /** Float32 little-endian samples at 16 kHz. */
  send(bytes: Uint8Array): void {
    if (this.ending || this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(bytes);
  }

  /** Sends END_OF_AUDIO and waits for the last segments (until the server hangs up, or a timeout). */
  async finish(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN && !this.ending) this.socket.send(END_OF_AUDIO);
    this.ending = true;
    const timer = setTimeout(() => this.socket.close(), this.options.finishTimeoutMs);
    await this.closed;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    this.ending = true;
    this.socket.terminate();
    await this.closed;
  }

  private receive(message: ServerMessage): void {
    if (message.message === 'DISCONNECT') {
      // Unasked (servers cap connection time), this counts as lost and the engine reconnects.
      this.socket.close();
      return;
    }
    if (message.status === 'ERROR') {
      this.options.log.error({ message: message.message }, 'whisperlive server reported an error');
      return;
    }
    if (message.status === 'WARNING') {
      this.options.log.warn({ message: message.message }, 'whisperlive server warning');
      return;
    }
    this.options.onMessage(message);
  }
}

function parse(text: string): ServerMessage | null {
  try {
    const result = serverMessage.safeParse(JSON.parse(text));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}
