import type { MeetingChat } from './meeting-chat.js';
import type { MeetingSetup } from './meeting-setup.js';
import type { PageAction, PageEvent } from './page-protocol.js';
import { type PageSession, sendTo } from './page-session.js';
import { deviceIdOf } from './page-view.js';
import { iso, type ParticipantSnapshot, type UtteranceSnapshot, type UtteranceStatus } from './snapshot.js';
import { buildTimeline, type TimelineEvent } from './timeline.js';

/** What a script needs of the meeting it runs in. */
export interface ScriptStage {
  isOpen(): boolean;
  /** Every session of the meeting, the bot's among them. */
  sessions(): Iterable<PageSession>;
  /** The session the meeting counts as the bot. */
  bot(): PageSession | undefined;
  /** The host ends the meeting (the script's `endAt`). */
  end(): void;
}

interface Presence {
  present: boolean;
  joinedAt: Date | null;
  leftAt: Date | null;
}

interface UtterancePlayback {
  status: UtteranceStatus;
  startedAt: Date | null;
  endedAt: Date | null;
  speechStartedAt: Date | null;
  speechEndedAt: Date | null;
  slot: number | null;
  beforeTracks: boolean | null;
}

const UNSTARTED_GRACE_SECONDS = 15;

/**
 * A meeting's script: its people joining, speaking, writing in the chat and leaving, on the
 * timeline that starts when the bot's media first flows, and what became of each line.
 */
export class MeetingScript {
  private readonly presence = new Map<string, Presence>();
  private readonly playback = new Map<string, UtterancePlayback>();
  private startedAt: Date | null = null;
  private timers: NodeJS.Timeout[] = [];
  private everyoneLeft = false;

  constructor(
    private readonly setup: MeetingSetup,
    private readonly stage: ScriptStage,
    private readonly chat: MeetingChat,
    createdAt: Date,
  ) {
    for (const participant of setup.participants) {
      const here = participant.joinAt === 0;
      this.presence.set(participant.id, {
        present: here,
        joinedAt: here ? createdAt : null,
        leftAt: null,
      });
    }
    for (const utterance of setup.utterances) {
      this.playback.set(utterance.id, {
        status: 'scheduled',
        startedAt: null,
        endedAt: null,
        speechStartedAt: null,
        speechEndedAt: null,
        slot: null,
        beforeTracks: null,
      });
    }
  }

  /** Media flows to the bot: the script runs once per meeting, from the first time it does. */
  start(mediaStartedAt: Date): void {
    if (this.startedAt) return;
    this.startedAt = mediaStartedAt;
    const events = buildTimeline(
      this.setup.participants,
      this.setup.utterances,
      this.setup.script.endAt,
      this.setup.chat ?? [],
    );
    this.timers = events.map((event) => setTimeout(() => this.fire(event), event.at * 1000));
  }

  /** Stops every timer: nothing more of the script happens. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
  }

  /** Everyone leaves at once; nobody joins, speaks or writes after. */
  everyoneLeaves(): void {
    this.everyoneLeft = true;
    this.dismissEveryone();
  }

  /** Everyone present leaves; what was still to be said is missed, what was being said is cut. */
  dismissEveryone(): void {
    for (const participant of this.setup.participants) {
      if (this.presence.get(participant.id)?.present) this.setPresent(participant.id, false);
    }
    const cut: string[] = [];
    for (const [id, playback] of this.playback) {
      if (playback.status === 'scheduled') playback.status = 'missed';
      if (playback.status === 'sent' || playback.status === 'playing') {
        playback.status = 'cut';
        cut.push(id);
      }
    }
    if (cut.length > 0) this.broadcast({ event: 'stop', data: { utteranceIds: cut } });
  }

  /** The bot's page stops its audio when it leaves the call, so nothing in flight finishes normally. */
  cutInFlight(): void {
    for (const playback of this.playback.values()) {
      if (playback.status === 'sent' || playback.status === 'playing') playback.status = 'cut';
    }
  }

  /** The bot's page started playing an utterance. */
  recordStart(action: Extract<PageAction, { type: 'utterance-started' }>): void {
    const playback = this.playback.get(action.utteranceId);
    if (playback?.status !== 'sent') return;
    playback.status = 'playing';
    playback.startedAt = new Date(action.at);
    playback.speechStartedAt = action.speechStartedAt ? new Date(action.speechStartedAt) : null;
    playback.slot = action.slot;
    playback.beforeTracks = action.beforeTracks;
  }

  /** The bot's page finished (or stopped) playing an utterance. */
  recordEnd(action: Extract<PageAction, { type: 'utterance-ended' }>): void {
    const playback = this.playback.get(action.utteranceId);
    if (!playback || playback.startedAt === null || playback.endedAt) return;
    playback.endedAt = new Date(action.at);
    playback.speechEndedAt = action.speechEndedAt ? new Date(action.speechEndedAt) : null;
    if (playback.status === 'playing') playback.status = 'played';
  }

  /** The scripted people in the call now. */
  presentIds(): string[] {
    return this.setup.participants.filter((p) => this.presence.get(p.id)?.present).map((p) => p.id);
  }

  participantSnapshots(): ParticipantSnapshot[] {
    return this.setup.participants.map((participant, index) => {
      const presence = this.presence.get(participant.id)!;
      return {
        id: participant.id,
        name: participant.name,
        voice: participant.voice,
        deviceId: deviceIdOf(this.setup, index + 1),
        joinAt: participant.joinAt,
        leaveAt: participant.leaveAt ?? null,
        present: presence.present,
        joinedAt: iso(presence.joinedAt),
        leftAt: iso(presence.leftAt),
      };
    });
  }

  utteranceSnapshots(): UtteranceSnapshot[] {
    return this.setup.utterances.map((utterance) => {
      const playback = this.playback.get(utterance.id)!;
      const speaker = this.setup.participants.find((p) => p.id === utterance.participantId)!;
      return {
        id: utterance.id,
        participantId: utterance.participantId,
        speaker: speaker.name,
        text: utterance.text,
        clip: utterance.clip,
        at: utterance.at,
        durationSeconds: utterance.durationSeconds,
        status: playback.status,
        startedAt: iso(playback.startedAt),
        endedAt: iso(playback.endedAt),
        speechStartedAt: iso(playback.speechStartedAt),
        speechEndedAt: iso(playback.speechEndedAt),
        slot: playback.slot,
        beforeTracks: playback.beforeTracks,
      };
    });
  }

  private fire(event: TimelineEvent): void {
    if (!this.stage.isOpen()) return;
    switch (event.kind) {
      case 'join':
        if (!this.everyoneLeft) this.setPresent(event.participantId, true);
        return;
      case 'leave':
        this.setPresent(event.participantId, false);
        return;
      case 'end':
        this.stage.end();
        return;
      case 'speak':
        this.speak(event.utteranceId);
        return;
      case 'chat':
        this.writeScriptedChat(event.chatId);
        return;
    }
  }

  private writeScriptedChat(chatId: string): void {
    const message = this.setup.chat?.find((m) => m.id === chatId);
    if (!message || this.everyoneLeft || !this.presence.get(message.participantId)?.present) return;
    const writer = this.setup.participants.find((p) => p.id === message.participantId)!;
    this.chat.post({
      id: message.id,
      sender: writer.name,
      text: message.text,
      at: new Date(),
      participantId: writer.id,
      sessionId: null,
    });
  }

  private speak(utteranceId: string): void {
    const playback = this.playback.get(utteranceId)!;
    const utterance = this.setup.utterances.find((u) => u.id === utteranceId)!;
    const listeners = [...this.stage.sessions()].filter(
      (s) => s.state === 'in_call' && s.connections.size > 0,
    );
    const bot = this.stage.bot();
    const botListens = bot !== undefined && listeners.includes(bot);
    if (this.everyoneLeft || !this.presence.get(utterance.participantId)?.present || !botListens) {
      playback.status = 'missed';
      return;
    }
    playback.status = 'sent';
    for (const session of listeners) sendTo(session, { event: 'play', data: { utteranceId } });
    // A page that never starts the audio (crashed, audio blocked) must not leave it pending forever.
    const giveUpMs = (utterance.durationSeconds + UNSTARTED_GRACE_SECONDS) * 1000;
    this.timers.push(
      setTimeout(() => {
        if (playback.status === 'sent') playback.status = 'missed';
      }, giveUpMs),
    );
  }

  private setPresent(participantId: string, present: boolean): void {
    const presence = this.presence.get(participantId)!;
    if (presence.present === present) return;
    presence.present = present;
    if (present) presence.joinedAt = new Date();
    else presence.leftAt = new Date();
    this.broadcast({ event: 'participants', data: { present: this.presentIds() } });
  }

  private broadcast(event: PageEvent): void {
    for (const session of this.stage.sessions()) sendTo(session, event);
  }
}
