import { SCREEN_IMAGE_MAX_BYTES, SPEAK_AUDIO_MAX_BYTES } from '../../../shared/contract/commands.js';
import type { BodyLimit } from '../route.js';

/** How many base64 characters `bytes` bytes take (with padding). */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/**
 * Room for the rest of the body beside the largest inline clip or image: the other members (a
 * speak text of 2000 characters escaped as \uXXXX is 12 KB) and JSON encoders that escape every
 * `/` of the base64 as `\/` (about 1.6 % more).
 */
const OTHER_MEMBERS_BYTES = 64 * 1024;

/**
 * POST …/speak and …/screen carry a clip or an image inline, up to the same 1 MiB (decoded) a
 * command carries: their bodies may be that large whatever REQUEST_BODY_LIMIT_BYTES says (the
 * larger of the two applies), so a body within the documented size is never refused by the general
 * cap first. A base64 member over its size, in a body under the cap, is 400 naming the member.
 */
export const speakBodyLimit: BodyLimit = {
  bytes: base64Length(SPEAK_AUDIO_MAX_BYTES) + OTHER_MEMBERS_BYTES,
  hint: `audio_base64 may carry at most ${SPEAK_AUDIO_MAX_BYTES} bytes of audio (decoded)`,
};

export const screenBodyLimit: BodyLimit = {
  bytes: base64Length(SCREEN_IMAGE_MAX_BYTES) + OTHER_MEMBERS_BYTES,
  hint: `image_base64 may carry at most ${SCREEN_IMAGE_MAX_BYTES} bytes of image (decoded)`,
};
