import { WebSocket } from 'ws';
import { type AudioFrameHeader, decodeAudioFrame } from '../../api/ws/audio-frames.js';

/** A frame the audio socket sent: a JSON control frame, or a decoded audio chunk and when it arrived. */
// biome-ignore lint/suspicious/noExplicitAny: control frames carry JSON
export type ControlFrame = Record<string, any>;
export interface ReceivedAudio {
  header: AudioFrameHeader;
  pcm: Buffer;
  /** Wall clock (ms) when the client had the frame. */
  receivedAtMs: number;
}

export interface AudioSocketClient {
  ws: WebSocket;
  control: ControlFrame[];
  audio: ReceivedAudio[];
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
  /** Waits until `predicate` holds (polling); fails when it never does. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** Every received chunk's samples in order, as one 16 kHz mono signal. */
  samples(): Int16Array;
  close(): void;
}

/** `ws://…/meetings/{id}/audio` of an API. */
export function audioSocketUrl(baseUrl: string, meetingId: number | string, query = ''): string {
  return `${baseUrl.replace(/^http/, 'ws')}/meetings/${meetingId}/audio${query}`;
}

/**
 * Opens a meeting's audio socket as a client program does; resolves once open (the close may follow
 * at once with a refusal: see `closed`), rejects when the upgrade itself is refused.
 */
export function openAudioSocket(
  url: string,
  options: { headers?: Record<string, string> } = {},
): Promise<AudioSocketClient> {
  const ws = new WebSocket(url, { headers: options.headers ?? {} });
  const control: ControlFrame[] = [];
  const audio: ReceivedAudio[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  ws.on('message', (data, isBinary) => {
    const receivedAtMs = Date.now();
    if (isBinary) {
      const { header, pcm } = decodeAudioFrame(data as Buffer);
      audio.push({ header, pcm, receivedAtMs });
    } else {
      control.push(JSON.parse(data.toString()) as ControlFrame);
    }
  });
  const client: AudioSocketClient = {
    ws,
    control,
    audio,
    closed,
    send(message) {
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    },
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out; control frames: ${JSON.stringify(control)}, ${audio.length} audio frames`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    samples() {
      const total = audio.reduce((sum, frame) => sum + frame.pcm.length / 2, 0);
      const out = new Int16Array(total);
      let offset = 0;
      for (const frame of audio) {
        for (let index = 0; index < frame.pcm.length; index += 2)
          out[offset++] = frame.pcm.readInt16LE(index);
      }
      return out;
    },
    close() {
      ws.close();
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused: ${response.statusCode}`)),
    );
    ws.once('error', (error) => {
      if (ws.readyState !== WebSocket.OPEN) setTimeout(() => reject(error), 50);
    });
  });
}
