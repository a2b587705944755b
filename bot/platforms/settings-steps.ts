/**
 * The pace of the platforms' incoming-video settings (google-meet-audio-only.ts, teams-incoming-video-off.ts):
 * each step's wait is generous, as a loaded page takes seconds to draw a menu; a menu's button must
 * be in the page within a short look, or the try skips that menu rather than clicking at nothing.
 */
export const SETTINGS_STEP_TIMEOUT_MS = 10_000;
export const MENU_BUTTON_PRESENT_MS = 2000;
