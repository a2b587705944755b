/**
 * Redis keys shared by bots and workers. Bots append to the two shared streams (one consumer group
 * of ingesters reads each); each meeting has its own durable command stream the bot reads.
 */
export function botEventsStream(prefix: string): string {
  return `${prefix}:bot-events`;
}

export function botSegmentsStream(prefix: string): string {
  return `${prefix}:bot-segments`;
}

/** Messages the ingesters could never apply, with the reason, for an operator to look at. */
export function botDeadLetterStream(prefix: string): string {
  return `${prefix}:bot-dead-letter`;
}

export function botCommandsStream(prefix: string, meetingId: number): string {
  return `${prefix}:bot-commands:${meetingId}`;
}
