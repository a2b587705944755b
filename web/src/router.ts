import { useEffect, useState } from 'preact/hooks';

/** The app's pages, in the URL's fragment (#/ or #/meetings/12): the server serves one page, and no key is ever in a URL. */
export type Route = { page: 'meetings' } | { page: 'meeting'; id: number };

export function parseRoute(hash: string): Route {
  const match = /^#\/meetings\/(\d{1,10})$/.exec(hash);
  return match ? { page: 'meeting', id: Number(match[1]) } : { page: 'meetings' };
}

export function meetingHref(id: number): string {
  return `#/meetings/${id}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
