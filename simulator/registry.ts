import { randomUUID } from 'node:crypto';
import { conflict, notFound, SimulatorError } from './errors.js';
import {
  generateMeetingId,
  generatePasscode,
  generateSpaceId,
  meetingPath,
  type SimPlatform,
} from './ids.js';
import { Meeting } from './meeting.js';
import type { CreateMeeting } from './schema.js';
import { findTimelineProblems, planParticipants, planUtterances } from './timeline.js';
import { type SpeechClip, SpeechSynthesizer } from './voices.js';

/** The simulator's meetings, and the speech clips their pages may fetch. */
export class MeetingRegistry {
  private readonly meetings = new Map<string, Meeting>();
  /** Opaque audio ids handed to pages, so clip URLs don't reveal or accept arbitrary paths. */
  private readonly clips = new Map<string, SpeechClip>();
  private readonly clipsOfMeeting = new Map<string, string[]>();

  constructor(
    private readonly baseUrl: () => string,
    private readonly speech: SpeechSynthesizer = new SpeechSynthesizer(),
  ) {}

  async create(script: CreateMeeting): Promise<Meeting> {
    const id = script.id ?? this.freshId(script.platform);
    if (this.meetings.has(id)) throw conflict(`meeting ${id} already exists`);
    const passcode = script.platform === 'teams' ? (script.passcode ?? generatePasscode()) : null;
    const participants = planParticipants(script.participants);
    const wanted = script.participants.flatMap((p, index) =>
      p.utterances.map((u) => ({ voice: participants[index]!.voice, text: u.text })),
    );
    const synthesized = new Map<string, SpeechClip>();
    await Promise.all(
      wanted.map(async ({ voice, text }) => {
        synthesized.set(SpeechSynthesizer.keyFor(voice, text), await this.speech.synthesize(voice, text));
      }),
    );
    const clipOf = (voice: Parameters<typeof SpeechSynthesizer.keyFor>[0], text: string) =>
      synthesized.get(SpeechSynthesizer.keyFor(voice, text))!;
    const utterances = planUtterances(
      script.participants,
      participants,
      (v, t) => clipOf(v, t).durationSeconds,
    );
    const problems = findTimelineProblems(participants, utterances);
    if (problems.length > 0) throw new SimulatorError(422, 'the script cannot play out', problems);
    // Checked again: another create with the same id may have finished while we synthesized.
    if (this.meetings.has(id)) throw conflict(`meeting ${id} already exists`);

    const audioIds = new Map<string, string>();
    for (const utterance of utterances) {
      const audioId = randomUUID();
      this.clips.set(audioId, clipOf(utterance.voice, utterance.text));
      audioIds.set(utterance.id, audioId);
    }
    const meeting = new Meeting({
      id,
      platform: script.platform,
      passcode,
      spaceId: generateSpaceId(),
      url: new URL(meetingPath(script.platform, id, passcode ?? undefined), this.baseUrl()).toString(),
      script,
      participants,
      utterances,
      audioUrlOf: (utteranceId) => `/_sim/audio/${audioIds.get(utteranceId)}.wav`,
    });
    this.meetings.set(id, meeting);
    this.clipsOfMeeting.set(id, [...audioIds.values()]);
    return meeting;
  }

  get(id: string): Meeting {
    const meeting = this.meetings.get(id);
    if (!meeting) throw notFound(`meeting ${id}`);
    return meeting;
  }

  find(id: string): Meeting | undefined {
    return this.meetings.get(id);
  }

  list(): Meeting[] {
    return [...this.meetings.values()];
  }

  delete(id: string): void {
    this.get(id).dispose();
    this.meetings.delete(id);
    for (const audioId of this.clipsOfMeeting.get(id) ?? []) this.clips.delete(audioId);
    this.clipsOfMeeting.delete(id);
  }

  clip(audioId: string): SpeechClip | undefined {
    return this.clips.get(audioId);
  }

  dispose(): void {
    for (const meeting of this.meetings.values()) meeting.dispose();
    this.meetings.clear();
  }

  private freshId(platform: SimPlatform): string {
    for (;;) {
      const id = generateMeetingId(platform);
      if (!this.meetings.has(id)) return id;
    }
  }
}
