/**
 * How the page scripts find people on a meeting page: the tiles, their names, which one is the
 * bot's own, and Meet's People list. Page code (a plain-JavaScript string, see
 * capture-page-script.ts for why), pasted into every script that needs it (the evidence snapshot
 * and the speaking observer), so the two always read a page the same way. Defines:
 *   meetTileName(tile)    a Meet tile's display name, or null
 *   isMeetSelfTile(tile)  the tile is the viewer's own (Meet marks it with data-self-name)
 *   meetTiles()           [{ tile, id, name, self }], one per data-participant-id, People-list rows left out
 *   meetPeopleLists()     the open People lists (role=list labelled "Participants" / "Teilnehmer")
 *   meetPerson(row)       { name, self } of a People-list row
 *   teamsTiles()          [{ tile, name }], the video tiles, named by their data-tid
 */
export const TILE_HELPERS = `
  const MEET_ICON_TEXT = /^[a-z_]+$/;
  // data-self-name names the viewer's own tile (on the real Meet too); the others are ours and the
  // simulator's ways of labelling a tile.
  const MEET_NAME_ATTRIBUTES = ['data-self-name', 'data-participant-name', 'data-name'];
  const MEET_SELF_MARKER = /\\((you|sie|du|ich)\\)/i;
  const meetNameAttribute = (el) => {
    for (const attribute of MEET_NAME_ATTRIBUTES) {
      const value = (el.getAttribute(attribute) || '').trim();
      if (value) return value;
    }
    return null;
  };
  const meetTileName = (tile) => {
    const own = meetNameAttribute(tile);
    if (own) return own;
    for (const named of tile.querySelectorAll('[data-self-name], [data-participant-name], [data-name]')) {
      const value = meetNameAttribute(named);
      if (value) return value;
    }
    // Meet keeps the name in a span the translator must not touch; other spans hold hover labels.
    const untranslated = tile.querySelector('span.notranslate');
    if (untranslated && (untranslated.textContent || '').trim()) return untranslated.textContent.trim();
    // The name is a span; avatars (initials) and icons are aria-hidden or icon ligatures.
    for (const selector of ['span', 'div']) {
      for (const el of tile.querySelectorAll(selector)) {
        if (el.children.length > 0 || el.closest('[aria-hidden="true"]')) continue;
        const text = (el.textContent || '').trim();
        if (text && text.length <= 80 && !MEET_ICON_TEXT.test(text)) return text;
      }
    }
    return null;
  };
  const isMeetSelfTile = (tile) => tile.hasAttribute('data-self-name') || Boolean(tile.querySelector('[data-self-name]'));
  const meetTiles = () => {
    const found = [];
    const seen = new Set();
    for (const tile of document.querySelectorAll('[data-participant-id]')) {
      const id = tile.getAttribute('data-participant-id');
      // People-list rows may carry the id too: they are people, not tiles.
      if (!id || seen.has(id) || tile.closest('[role="list"], [role="listitem"]')) continue;
      seen.add(id);
      found.push({ tile, id, name: meetTileName(tile), self: isMeetSelfTile(tile) });
    }
    return found;
  };
  const meetPeopleLists = () => [...document.querySelectorAll('[role="list"]')]
    .filter((list) => /^(participants|teilnehmer)$/i.test((list.getAttribute('aria-label') || '').trim()));
  const meetPerson = (row) => {
    const untranslated = row.querySelector('span.notranslate');
    const name = (row.getAttribute('aria-label') || (untranslated && untranslated.textContent) || '').trim();
    return { name, self: MEET_SELF_MARKER.test(row.textContent || '') };
  };
  const teamsTiles = () => [...document.querySelectorAll('[data-stream-type="Video"][data-tid]')]
    .map((tile) => ({ tile, name: tile.getAttribute('data-tid') }))
    .filter(({ name }) => Boolean(name));
`;
