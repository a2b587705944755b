/** A distinct Google Meet code (xxx-xxxx-xxx) for each number: `n` in base 26, as letters. */
export function meetCodeOf(n: number): string {
  const letters = n
    .toString(26)
    .padStart(10, '0')
    .replace(/./g, (digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)));
  return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}
