import { z } from 'zod';

// The kinds of value the settings are written in (config.ts and bot-settings.ts).

export const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

export const originList = commaList.pipe(
  z.array(
    z.url({
      protocol: /^https?$/,
      error: 'each entry must be an http(s) origin such as http://127.0.0.1:4100',
    }),
  ),
);

export const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .default('false')
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const port = z.coerce.number().int().min(0).max(65535);
