/** The send-bot form's fields an API error can point at. */
export type BotField = 'link' | 'bot_name' | 'language' | 'form';

const FIELD_OF: Record<string, BotField> = {
  platform: 'link',
  native_meeting_id: 'link',
  meeting_url: 'link',
  passcode: 'link',
  bot_name: 'bot_name',
  language: 'language',
  task: 'language',
};

/**
 * Which field an API error names: its `{ "error" }` starts with the field (`language: …`,
 * `meeting_url: …`); the spec's `Invalid meeting ID format` is about the link too. Anything else
 * (a limit, a bot already in the meeting) is about the whole form.
 */
export function fieldOfError(message: string): BotField {
  if (/meeting id/i.test(message)) return 'link';
  const match = /^([a-z_]+)(?:[.[][^:]*)?:/.exec(message);
  return (match && FIELD_OF[match[1]!]) || 'form';
}
