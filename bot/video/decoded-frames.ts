/**
 * Counts the remote video the page decodes (inbound-rtp `framesDecoded` over every RTCPeerConnection
 * the page made, closed ones with their last count), so the bot can say in its log whether its
 * measures worked on the real page: after `incoming_video_off` only a shared screen should still
 * add frames. Read-only: getStats is what the platforms' own clients call every second.
 */
export const VIDEO_GLOBAL = '__meetbotVideo';

export const DECODED_FRAMES_SCRIPT = `
  (() => {
    const Native = window.RTCPeerConnection;
    if (!Native) return;
    const peers = new Set();
    let ended = 0;
    class PeerConnection extends Native {
      constructor(...args) {
        super(...args);
        peers.add(this);
      }
    }
    window.RTCPeerConnection = PeerConnection;
    if (window.webkitRTCPeerConnection) window.webkitRTCPeerConnection = PeerConnection;
    const framesOf = async (peer) => {
      let frames = 0;
      const report = await peer.getStats();
      report.forEach((stat) => {
        if (stat.type === 'inbound-rtp' && stat.kind === 'video') frames += stat.framesDecoded || 0;
      });
      return frames;
    };
    const last = new Map();
    Object.defineProperty(window, '${VIDEO_GLOBAL}', {
      value: Object.freeze({
        async framesDecoded() {
          let total = ended;
          for (const peer of peers) {
            if (peer.connectionState === 'closed') {
              ended += last.get(peer) || 0;
              total += last.get(peer) || 0;
              peers.delete(peer);
              last.delete(peer);
              continue;
            }
            const frames = await framesOf(peer).catch(() => last.get(peer) || 0);
            last.set(peer, frames);
            total += frames;
          }
          return total;
        },
      }),
    });
  })();
`;
