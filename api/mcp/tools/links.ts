import { z } from 'zod';
import { parseMeetingLink } from '../../../shared/contract/platforms.js';
import { BadRequestError } from '../../../shared/infra/errors.js';
import { defineTool, parseArguments } from '../tool.js';

const linkArguments = z.object({
  meeting_url: z
    .string({ error: 'must be a string' })
    .max(2048, 'must be at most 2048 characters')
    .describe(
      'A Google Meet, Teams or Zoom meeting link, e.g. https://meet.google.com/abc-defg-hij or https://zoom.us/j/85412369870',
    ),
});

export const parseMeetingLinkTool = defineTool({
  name: 'parse_meeting_link',
  title: 'Parse a meeting link',
  description:
    'Reads a Google Meet, Microsoft Teams or Zoom meeting link into the platform, native_meeting_id, the passcode (p in Teams links, pwd in Zoom links) and the meeting_url, exactly what send_bot takes. Refuses links that send_bot would refuse.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: () => linkArguments.shape,
  parse: (args) => parseArguments(linkArguments, args),
  async call({ meeting_url }, { deps }) {
    const parsed = parseMeetingLink(meeting_url, deps.bots.extraMeetingOrigins);
    if (!parsed.ok) throw new BadRequestError(parsed.reason);
    const { platform, nativeMeetingId, passcode, meetingUrl } = parsed.link;
    return {
      json: {
        platform,
        native_meeting_id: nativeMeetingId,
        ...(passcode !== undefined && { passcode }),
        meeting_url: meetingUrl,
      },
    };
  },
});
