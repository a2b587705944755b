// Delivers locally produced audio tracks to the page as REMOTE WebRTC tracks, through a pair of
// RTCPeerConnections inside the page, so a bot sees what it sees on the real sites: 'track'
// events on an RTCPeerConnection and MediaStreams that come from one.
//
// The pair is connected early with a data channel; tracks are added later by renegotiating over
// the live transport, so "late tracks" appear exactly when the meeting decides.
// ICE needs a non-loopback interface: where the machine has none (e.g. a container without a
// network) the pair never connects, and callers fall back to the WebAudio streams themselves.

const CONNECT_TIMEOUT_MS = 6000;
/** The RTP header extensions that carry audio levels, which receivers report per source. */
const AUDIO_LEVEL_EXTENSIONS = [
  'urn:ietf:params:rtp-hdrext:ssrc-audio-level',
  'urn:ietf:params:rtp-hdrext:csrc-audio-level',
];

/** `sdp` without the a=extmap lines of the audio-level header extensions. */
export function withoutAudioLevels(sdp) {
  return sdp
    .split('\r\n')
    .filter(
      (line) => !(line.startsWith('a=extmap:') && AUDIO_LEVEL_EXTENSIONS.some((uri) => line.includes(uri))),
    )
    .join('\r\n');
}

export class LoopbackLink {
  /**
   * audioLevels: false strips the audio-level header extensions from the SDP both ways, so the
   * receiving side's getSynchronizationSources() report no audioLevel (the `webrtc` signal hidden).
   */
  constructor({ audioLevels = true } = {}) {
    this.audioLevels = audioLevels;
    this.sender = new RTCPeerConnection();
    this.receiver = new RTCPeerConnection();
    this.sender.onicecandidate = (e) =>
      e.candidate && this.receiver.addIceCandidate(e.candidate).catch(() => {});
    this.receiver.onicecandidate = (e) =>
      e.candidate && this.sender.addIceCandidate(e.candidate).catch(() => {});
    this.sender.createDataChannel('control');
    this.streamIdRenames = new Map();
  }

  /** Resolves true once connected, false when ICE can't connect here. */
  async connect() {
    await this.negotiate();
    const deadline = Date.now() + CONNECT_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const state = this.receiver.connectionState;
      if (state === 'connected') return true;
      if (state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.close();
    return false;
  }

  /**
   * Sends `stream`'s tracks (audio, or video for the `load` setting) and resolves with the remote
   * MediaStream carrying them. `remoteStreamId`, when given, is the id the receiving side sees
   * (Teams' "mainAudio…"). `prepare(sender, transceiver)`, when given, runs for each track's
   * sender before the offer (a transform, codec preferences).
   */
  async send(stream, remoteStreamId, prepare) {
    if (remoteStreamId) this.streamIdRenames.set(stream.id, remoteStreamId);
    const arrived = new Promise((resolve) => {
      const onTrack = (event) => {
        const remote = event.streams[0];
        if (remote && remote.id === (remoteStreamId ?? stream.id)) {
          this.receiver.removeEventListener('track', onTrack);
          resolve(remote);
        }
      };
      this.receiver.addEventListener('track', onTrack);
    });
    for (const track of stream.getTracks()) {
      const sender = this.sender.addTrack(track, stream);
      // First: Chromium passes no frame through a transform set after setParameters.
      prepare?.(
        sender,
        this.sender.getTransceivers().find((transceiver) => transceiver.sender === sender),
      );
      // Like a camera's sender under load: keep the size, drop frames instead.
      if (track.kind === 'video') {
        const parameters = sender.getParameters();
        parameters.degradationPreference = 'maintain-resolution';
        await sender.setParameters(parameters).catch(() => {});
      }
    }
    await this.negotiate();
    return arrived;
  }

  /** Stops sending `stream`'s tracks (a camera turned off, a person gone); the receiving track ends. */
  async unsend(stream) {
    const tracks = new Set(stream.getTracks());
    for (const sender of this.sender.getSenders()) {
      if (sender.track && tracks.has(sender.track)) this.sender.removeTrack(sender);
    }
    await this.negotiate();
  }

  async negotiate() {
    const offer = await this.sender.createOffer();
    await this.sender.setLocalDescription(offer);
    let sdp = offer.sdp;
    for (const [from, to] of this.streamIdRenames) sdp = sdp.split(from).join(to);
    if (!this.audioLevels) sdp = withoutAudioLevels(sdp);
    await this.receiver.setRemoteDescription({ type: 'offer', sdp });
    const answer = await this.receiver.createAnswer();
    await this.receiver.setLocalDescription(answer);
    const answerSdp = this.audioLevels ? answer.sdp : withoutAudioLevels(answer.sdp);
    await this.sender.setRemoteDescription({ type: 'answer', sdp: answerSdp });
  }

  close() {
    this.sender.close();
    this.receiver.close();
  }
}
