/**
 * When an audio socket's client is too slow: the API never queues more than this much audio for
 * it. A client that reads slower than real time only falls further behind, so it is closed
 * (AUDIO_CLOSE.slowConsumer) rather than fed late audio or made to grow the API's memory.
 */

/** About 6 s of 16 kHz s16le audio with its headers: past that, the client is not keeping up. */
export const AUDIO_SEND_LIMIT_BYTES = 192 * 1024;

export type SendVerdict = { send: true } | { send: false; reason: string };

/**
 * Whether a frame of `frameBytes` may be queued on a socket with `bufferedBytes` still unsent
 * (ws' bufferedAmount: what the kernel's socket buffer did not take yet).
 */
export function slowConsumerVerdict(
  bufferedBytes: number,
  frameBytes: number,
  limitBytes = AUDIO_SEND_LIMIT_BYTES,
): SendVerdict {
  if (bufferedBytes + frameBytes <= limitBytes) return { send: true };
  return {
    send: false,
    reason: `Slow consumer: ${Math.round(bufferedBytes / 1024)} KiB of audio unsent (limit ${Math.round(limitBytes / 1024)} KiB); read faster and reconnect`,
  };
}

/**
 * Close codes of the audio socket besides the standard ones (1000 meeting ended, 1001 shutdown,
 * 1008 a client message other than `auth` or `ping`, 1009 a message too big, 1011 internal error,
 * 1013 try again later); 44xx mirror HTTP statuses.
 */
export const AUDIO_CLOSE = {
  meetingEnded: 1000,
  goingAway: 1001,
  policyViolation: 1008,
  internalError: 1011,
  tryAgainLater: 1013,
  slowConsumer: 4000,
  unauthorized: 4401,
  notFound: 4404,
  notActive: 4409,
  tooManyRequests: 4429,
} as const;
