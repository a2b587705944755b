import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { conflict, notFound, SimulatorError } from './errors.js';
import {
  generateMeetingId,
  generatePasscode,
  generateSpaceId,
  meetingPath,
  type SimPlatform,
} from './ids.js';
import { Meeting } from './meeting.js';
import { RecordingCatalog } from './recordings.js';
import type { CreateMeeting, Voice } from './schema.js';
import { findTimelineProblems, planChat, planParticipants, planUtterances } from './timeline.js';
import { type SpeechClip, SpeechSynthesizer } from './voices.js';
import { parseWav } from './wav.js';

/** The simulator's meetings, and the speech clips their pages may fetch. */
export class MeetingRegistry {
  private readonly meetings = new Map<string, Meeting>();
  /** Opaque audio ids handed to pages, so clip URLs don't reveal or accept arbitrary paths. */
  private readonly clips = new Map<string, SpeechClip>();
  private readonly clipsOfMeeting = new Map<string, string[]>();

  constructor(
    private readonly baseUrl: () => string,
    private readonly speech: SpeechSynthesizer = new SpeechSynthesizer(),
    private readonly recordings: RecordingCatalog = new RecordingCatalog(),
  ) {}

  /** The recordings a script names, each with its clip; a name that is not installed is a 400. */
  private async recordingsOf(
    script: CreateMeeting,
  ): Promise<Map<string, { clip: SpeechClip; text: string }>> {
    const found = new Map<string, { clip: SpeechClip; text: string }>();
    const problems: string[] = [];
    for (const [pIndex, participant] of script.participants.entries()) {
      for (const [uIndex, utterance] of participant.utterances.entries()) {
        if (utterance.clip === undefined || found.has(utterance.clip)) continue;
        const recording = this.recordings.get(utterance.clip);
        if (!recording) {
          problems.push(
            `participants.${pIndex}.utterances.${uIndex}.clip: ${this.recordings.whyMissing(utterance.clip)}`,
          );
          continue;
        }
        const durationSeconds = parseWav(await readFile(recording.path)).durationSeconds;
        found.set(utterance.clip, {
          clip: { key: `recording:${recording.id}`, path: recording.path, durationSeconds },
          text: recording.text,
        });
      }
    }
    if (problems.length > 0) {
      throw new SimulatorError(400, `invalid request: ${problems.join('; ')}`, problems);
    }
    return found;
  }

  async create(script: CreateMeeting): Promise<Meeting> {
    const id = script.id ?? this.freshId(script.platform);
    if (this.meetings.has(id)) throw conflict(`meeting ${id} already exists`);
    // Teams always has one; a Zoom meeting only when its script gives one (Zoom's passcode is optional).
    const passcode =
      script.platform === 'teams'
        ? (script.passcode ?? generatePasscode())
        : script.platform === 'zoom'
          ? (script.passcode ?? null)
          : null;
    const participants = planParticipants(script.participants);
    const recorded = await this.recordingsOf(script);
    const wanted = script.participants.flatMap((p, index) =>
      p.utterances.flatMap((u) =>
        u.text === undefined ? [] : [{ voice: participants[index]!.voice, text: u.text }],
      ),
    );
    const synthesized = new Map<string, SpeechClip>();
    await Promise.all(
      wanted.map(async ({ voice, text }) => {
        synthesized.set(SpeechSynthesizer.keyFor(voice, text), await this.speech.synthesize(voice, text));
      }),
    );
    const clipOf = (voice: Voice, utterance: { text: string; clip: string | null }): SpeechClip =>
      utterance.clip === null
        ? synthesized.get(SpeechSynthesizer.keyFor(voice, utterance.text))!
        : recorded.get(utterance.clip)!.clip;
    const utterances = planUtterances(
      script.participants,
      participants,
      (voice, u) =>
        u.clip === undefined
          ? synthesized.get(SpeechSynthesizer.keyFor(voice, u.text!))!.durationSeconds
          : recorded.get(u.clip)!.clip.durationSeconds,
      (u) => (u.clip === undefined ? u.text! : recorded.get(u.clip)!.text),
    );
    const chat = planChat(script.participants, participants);
    const problems = findTimelineProblems(participants, utterances, chat);
    if (problems.length > 0) throw new SimulatorError(422, 'the script cannot play out', problems);
    // Checked again: another create with the same id may have finished while we synthesized.
    if (this.meetings.has(id)) throw conflict(`meeting ${id} already exists`);

    const audioIds = new Map<string, string>();
    for (const utterance of utterances) {
      const audioId = randomUUID();
      this.clips.set(audioId, clipOf(utterance.voice, utterance));
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
      chat,
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
