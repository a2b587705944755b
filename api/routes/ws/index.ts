import { error } from '../../openapi/responses.js';
import { type RouteAuth, routesOf } from '../route.js';

/**
 * `/ws` is upgraded to a WebSocket before Koa sees it (api/ws/server.ts); this route is what the
 * document says of it, and the answer to a request that does not ask for the upgrade.
 */
const keyInTheSocket: RouteAuth = {
  // The key is checked once the socket is open (an error frame and close 4401 without one), so a
  // browser, which cannot set headers on a WebSocket, can send it as the first message.
  security: [{ ApiKey: [] }],
  middleware: () => undefined,
};

const route = routesOf<Record<string, never>>();

export const liveSocketRoutes = [
  route({
    method: 'get',
    path: '/ws',
    auth: keyInTheSocket,
    summary: 'Live feed over WebSocket: one socket, many meetings (Vexa’s /ws protocol)',
    description:
      'Upgrade to a WebSocket (`Connection: Upgrade`, `Upgrade: websocket`). The API key comes as `X-API-Key` or `Authorization: Bearer` on the upgrade, or (browsers) as the first message `{"action": "auth", "api_key": "…"}`; Vexa’s `?api_key=` is accepted too. Then `{"action": "subscribe", "meetings": [{"platform": "google_meet", "native_id": "abc-defg-hij", "cursor": "…"}]}` (or `{"meeting_id": 12}`) sends each meeting’s history after `cursor` (all of it without one) and every committed change: `transcript.mutable` (segments, replaced by `segment_id`), `meeting.status` and `chat_message` frames, each with the `cursor` to resume from; `unsubscribe` and `ping` besides. Browser upgrades from another site are refused (403), as the rest of the API refuses them. The messages, limits and close codes: docs/api.md, “Live feed over WebSocket”.',
    responses: {
      101: { description: 'Switching Protocols: the socket is open' },
      400: error('A malformed WebSocket handshake (`Bad request: invalid Sec-WebSocket-Key`)'),
      403: error('A browser page of another site (`Cross-site request refused …`)'),
      426: error(
        'Not a WebSocket upgrade (`Upgrade required: …`), or a WebSocket version other than 13 (with `Sec-WebSocket-Version: 13`)',
      ),
      503: error('The API process is shutting down (`Shutting down; reconnect in a moment`)'),
    },
    handler(ctx) {
      ctx.status = 426;
      ctx.set({ Upgrade: 'websocket', Connection: 'Upgrade' });
      ctx.body = {
        error:
          'Upgrade required: /ws is a WebSocket endpoint (send Connection: Upgrade and Upgrade: websocket)',
      };
    },
  }),
];
