export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  durationSeconds: number;
}

/** Reads a RIFF/WAVE header (PCM), walking chunks because flite's are not always canonical. */
export function parseWav(buffer: Buffer): WavInfo {
  if (
    buffer.length < 12 ||
    buffer.toString('ascii', 0, 4) !== 'RIFF' ||
    buffer.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw new Error('not a RIFF/WAVE file');
  }
  let offset = 12;
  let format: Omit<WavInfo, 'durationSeconds'> | undefined;
  while (offset + 8 <= buffer.length) {
    const id = buffer.toString('ascii', offset, offset + 4);
    const size = buffer.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = {
        channels: buffer.readUInt16LE(body + 2),
        sampleRate: buffer.readUInt32LE(body + 4),
        bitsPerSample: buffer.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format) throw new Error('WAVE data chunk before fmt chunk');
      // A streaming writer may leave the size unset; the rest of the file is then the data.
      const dataBytes = Math.min(size, buffer.length - body);
      const frameBytes = (format.bitsPerSample / 8) * format.channels;
      return { ...format, durationSeconds: dataBytes / frameBytes / format.sampleRate };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAVE file without a data chunk');
}
