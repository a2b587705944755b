import type { Recognize } from './hearing.js';
import type { SimPlatform } from './ids.js';
import type { CreateMeeting } from './schema.js';
import type { PlannedChatMessage, PlannedParticipant, PlannedUtterance } from './timeline.js';

/** Everything a meeting is made from: its ids, its script and the plan the registry made of it. */
export interface MeetingSetup {
  id: string;
  platform: SimPlatform;
  passcode: string | null;
  spaceId: string;
  url: string;
  script: CreateMeeting;
  participants: PlannedParticipant[];
  utterances: PlannedUtterance[];
  /** What the scripted people write in the chat; none when absent. */
  chat?: PlannedChatMessage[];
  audioUrlOf: (utteranceId: string) => string;
  /** How long a page may be gone (e.g. reloading) before the bot counts as having left. */
  pageGoneGraceMs?: number;
  /** What recognizes the bot's speech (pocketsphinx by default). */
  recognize?: Recognize;
}
