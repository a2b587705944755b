import type { Knex } from 'knex';
import * as initialSchema from './20261122000001_initial_schema.js';
import * as meetingLaunches from './20261122000002_meeting_launches.js';
import * as segmentChangeSeq from './20261122000003_segment_change_seq.js';
import * as webhooks from './20261122000004_webhooks.js';
import * as meetingRowVersion from './20261123000005_meeting_row_version.js';
import * as segmentJsonText from './20261123000006_segment_json_text.js';
import * as workerHeartbeats from './20261123000007_worker_heartbeats.js';
import * as recordings from './20261124000008_recordings.js';
import * as mediaLinksAndUserErasure from './20261125000009_media_links_and_user_erasure.js';
import * as chatMessages from './20261126000010_chat_messages.js';
import * as search from './20261127000011_search.js';
import * as scheduledBots from './20261127000012_scheduled_bots.js';
import * as calendarFeeds from './20261128000013_calendar_feeds.js';
import * as botAccounts from './20261128000014_bot_accounts.js';
import * as joinRetries from './20261128000015_join_retries.js';
import * as participantEvents from './20261129000016_participant_events.js';
import * as zoomPlatform from './20261129000018_zoom_platform.js';
import * as meetingsByBotAccount from './20261130000019_meetings_by_bot_account.js';

/**
 * Every migration, in order. Listed explicitly (not discovered from the file system) so the same
 * code runs from TypeScript sources under tsx/Vitest and from compiled JavaScript in dist/.
 */
export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Knex.Migration]> = [
  ['20261122000001_initial_schema', initialSchema],
  ['20261122000002_meeting_launches', meetingLaunches],
  ['20261122000003_segment_change_seq', segmentChangeSeq],
  ['20261122000004_webhooks', webhooks],
  ['20261123000005_meeting_row_version', meetingRowVersion],
  ['20261123000006_segment_json_text', segmentJsonText],
  ['20261123000007_worker_heartbeats', workerHeartbeats],
  ['20261124000008_recordings', recordings],
  ['20261125000009_media_links_and_user_erasure', mediaLinksAndUserErasure],
  ['20261126000010_chat_messages', chatMessages],
  ['20261127000011_search', search],
  ['20261127000012_scheduled_bots', scheduledBots],
  ['20261128000013_calendar_feeds', calendarFeeds],
  ['20261128000014_bot_accounts', botAccounts],
  ['20261128000015_join_retries', joinRetries],
  ['20261129000016_participant_events', participantEvents],
  ['20261129000018_zoom_platform', zoomPlatform],
  ['20261130000019_meetings_by_bot_account', meetingsByBotAccount],
];
