/** Minimal RIFF/WAVE support: 16-bit PCM, which is all the engines send or receive. */

export interface DecodedWav {
  sampleRate: number;
  channels: number;
  /** Mono samples (multi-channel input is averaged). */
  samples: Int16Array;
}

export function encodeWav(samples: Int16Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const dataBytes = samples.length * 2;
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  writeAscii(view, 0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  writeAscii(view, 8, 'WAVE');
  writeAscii(view, 12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  writeAscii(view, 36, 'data');
  view.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, samples[i]!, true);
  return bytes;
}

/** Throws on anything but 16-bit PCM WAV, naming what was found. */
export function decodeWav(bytes: Uint8Array): DecodedWav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || readAscii(view, 0, 4) !== 'RIFF' || readAscii(view, 8, 4) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  let format: { channels: number; sampleRate: number; bitsPerSample: number; audioFormat: number } | null =
    null;
  let offset = 12;
  while (offset + 8 <= bytes.byteLength) {
    const id = readAscii(view, offset, 4);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = {
        audioFormat: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data chunk before its fmt chunk');
      // 0xfffe is WAVE_FORMAT_EXTENSIBLE, which sox writes for some layouts; it is still PCM here.
      if ((format.audioFormat !== 1 && format.audioFormat !== 0xfffe) || format.bitsPerSample !== 16) {
        throw new Error(
          `unsupported WAV encoding (format ${format.audioFormat}, ${format.bitsPerSample} bits)`,
        );
      }
      // Streaming writers leave the size at 0 or 0xffffffff: take what is there.
      const available = bytes.byteLength - body;
      const length = size === 0 || size > available ? available : size;
      return { ...pick(format), samples: toMono(view, body, length, format.channels) };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}

function pick(format: { channels: number; sampleRate: number }): { channels: number; sampleRate: number } {
  return { channels: format.channels, sampleRate: format.sampleRate };
}

function toMono(view: DataView, start: number, length: number, channels: number): Int16Array {
  const frames = Math.floor(length / (2 * channels));
  const out = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++) {
      sum += view.getInt16(start + (frame * channels + channel) * 2, true);
    }
    out[frame] = Math.round(sum / channels);
  }
  return out;
}

function writeAscii(view: DataView, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
}

function readAscii(view: DataView, offset: number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(view.getUint8(offset + i));
  return text;
}
