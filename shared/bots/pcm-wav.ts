import { BadRequestError } from '../infra/errors.js';

/** Raw PCM as Vexa's clients send it (`"format": "pcm"`): signed 16-bit little-endian samples. */
export interface PcmLayout {
  sampleRate: number;
  channels: number;
}

/** The bytes a WAV header adds in front of the samples. */
export const WAV_HEADER_BYTES = 44;

/**
 * Raw PCM wrapped in a WAV header, so the bot's page decodes it like any clip. `field` names the
 * request member in the 400 for PCM that doesn't hold whole samples on every channel.
 */
export function wavOfPcm(pcm: Uint8Array, { sampleRate, channels }: PcmLayout, field: string): Buffer {
  const frameBytes = 2 * channels;
  if (pcm.length === 0 || pcm.length % frameBytes !== 0) {
    throw new BadRequestError(
      `${field}: PCM must hold whole 16-bit samples on each of its ${channels} channel(s) (a multiple of ${frameBytes} bytes)`,
    );
  }
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * frameBytes, 28);
  header.writeUInt16LE(frameBytes, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
