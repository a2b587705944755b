import { describe, expect, it } from 'vitest';
import { Meeting } from '../../../simulator/meeting.js';
import type { PageEvent } from '../../../simulator/page-protocol.js';
import type { PageConnection } from '../../../simulator/page-session.js';
import { type CreateMeetingInput, createMeetingInput } from '../../../simulator/schema.js';
import { planChat, planParticipants, planUtterances } from '../../../simulator/timeline.js';

function meetingFrom(
  input: Omit<CreateMeetingInput, 'platform'>,
  platform: 'google_meet' | 'teams',
): Meeting {
  const script = createMeetingInput.parse({
    platform,
    ...(platform === 'teams' && { passcode: 'Ab12cd' }),
    ...input,
  });
  const participants = planParticipants(script.participants);
  return new Meeting({
    id: platform === 'teams' ? '123456789012' : 'abc-defg-hij',
    platform,
    passcode: platform === 'teams' ? 'Ab12cd' : null,
    spaceId: 'space1',
    url: 'http://127.0.0.1:1/x',
    script,
    participants,
    utterances: planUtterances(script.participants, participants, () => 1),
    chat: planChat(script.participants, participants),
    audioUrlOf: (id) => `/audio/${id}.wav`,
  });
}

function hello(meeting: Meeting, sessionId: string, token: string | null) {
  const events: PageEvent[] = [];
  const connection: PageConnection = { send: (event) => events.push(event) };
  meeting.connect(sessionId, connection, token);
  const first = events.find((event) => event.event === 'hello');
  if (!first?.data.found) throw new Error('no meeting hello');
  return first.data;
}

const access = {
  signedInOnly: true,
  accounts: [
    { name: 'Ada Bot', token: 'token-ada-0001' },
    { name: 'Old Bot', token: 'token-old-0001', expired: true },
  ],
};
const ask = { type: 'ask', name: 'Typed Name', micOn: false, cameraOn: false } as const;

describe.each(['google_meet', 'teams'] as const)('%s: a sign-in-only meeting', (platform) => {
  const signInTraps =
    platform === 'google_meet' ? { signInScreen: true } : { signIn: 'sign_in_to_continue' as const };

  it("shows a guest the platform's sign-in screen and refuses its join", () => {
    const meeting = meetingFrom({ admission: { policy: 'open' }, access }, platform);
    const data = hello(meeting, 'guest-session', null);
    expect(data.signedInAs).toBeNull();
    expect(data.meeting.traps).toMatchObject(signInTraps);
    expect(() => meeting.act('guest-session', ask)).toThrow(/only signed-in users/);
  });

  it("admits a browser with a valid session cookie under the account's name", () => {
    const meeting = meetingFrom({ admission: { policy: 'open' }, access }, platform);
    const data = hello(meeting, 'bot-session', 'token-ada-0001');
    expect(data).toMatchObject({ signedInAs: 'Ada Bot', name: 'Ada Bot' });
    expect(data.meeting.traps).not.toMatchObject(signInTraps);
    meeting.act('bot-session', ask);
    expect(meeting.snapshot().bot).toMatchObject({
      state: 'in_call',
      name: 'Ada Bot',
      signedInAs: 'Ada Bot',
    });
  });

  it('takes an expired or unknown cookie for a guest, and expires an account mid-life', () => {
    const meeting = meetingFrom({ admission: { policy: 'open' }, access }, platform);
    expect(hello(meeting, 'old', 'token-old-0001').signedInAs).toBeNull();
    expect(hello(meeting, 'unknown', 'token-nobody-01').signedInAs).toBeNull();
    expect(hello(meeting, 'ada', 'token-ada-0001').signedInAs).toBe('Ada Bot');
    meeting.expireAccount('Ada Bot');
    const again = hello(meeting, 'ada-reload', 'token-ada-0001');
    expect(again.signedInAs).toBeNull();
    expect(again.meeting.traps).toMatchObject(signInTraps);
    expect(meeting.snapshot().access.accounts).toEqual([
      { name: 'Ada Bot', expired: true },
      { name: 'Old Bot', expired: true },
    ]);
    expect(() => meeting.expireAccount('Nobody')).toThrow(/not found/);
  });
});

describe('an open meeting', () => {
  it('signs in a browser with a cookie but lets guests join as before', () => {
    const meeting = meetingFrom(
      { admission: { policy: 'open' }, access: { signedInOnly: false, accounts: access.accounts } },
      'google_meet',
    );
    const guest = hello(meeting, 'guest', null);
    expect(guest.meeting.traps.signInScreen).toBe(false);
    meeting.act('guest', ask);
    expect(meeting.snapshot().bot).toMatchObject({ state: 'in_call', name: 'Typed Name', signedInAs: null });
  });

  it('refuses duplicate account names or tokens', () => {
    const result = createMeetingInput.safeParse({
      platform: 'google_meet',
      access: {
        accounts: [
          { name: 'A', token: 'token-aaaa-1' },
          { name: 'A', token: 'token-bbbb-1' },
        ],
      },
    });
    expect(result.success).toBe(false);
  });
});
