/** Conversions between the capture format (signed 16-bit) and the float form some servers want. */

export function int16ToFloat32(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

export function float32ToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    // The exact inverse of int16ToFloat32, clamped: +1.0 has no int16 and becomes 32767.
    out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  }
  return out;
}

/** Float32 little-endian bytes whatever the host's byte order, as WhisperLive expects on the wire. */
export function float32ToLittleEndianBytes(samples: Float32Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setFloat32(i * 4, samples[i]!, true);
  return bytes;
}

export function littleEndianBytesToFloat32(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Signed 16-bit little-endian bytes (s16le), the raw format pocketsphinx reads. */
export function int16ToLittleEndianBytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return bytes;
}

export function concatInt16(parts: readonly Int16Array[]): Int16Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Int16Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Where speech begins for the bot's own ears (≈ −40 dBFS, the simulator's threshold too): a chunk
 * louder than this keeps the silence timer from running out and is never cut from a recording.
 */
export const SPEECH_DBFS = -40;

export function isSpeech(samples: Int16Array): boolean {
  return rmsDbfs(samples) > SPEECH_DBFS;
}

/** Root mean square level in dB relative to full scale; -Infinity for digital silence. */
export function rmsDbfs(samples: Int16Array, from = 0, to = samples.length): number {
  if (to <= from) return Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (let i = from; i < to; i++) {
    const s = samples[i]! / 32768;
    sum += s * s;
  }
  const rms = Math.sqrt(sum / (to - from));
  return rms === 0 ? Number.NEGATIVE_INFINITY : 20 * Math.log10(rms);
}
