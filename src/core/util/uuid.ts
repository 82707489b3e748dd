/** A random (version 4) UUID drawn from a RandomSource, so seeded tests get the same ones. */
import type { RandomSource } from './clock';
import { hexOfByte, hexOfBytes } from './hex';


/** Scratch for the random bytes, read at once: one array for every uid (each object a create stores gets one), not one each. */
const scratch = new Uint8Array(16);

export function newUUID(random: RandomSource): string {
  const b = random.fill(scratch);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  let uid = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) uid += '-';
    uid += hexOfByte(b[i]!);
  }
  return uid;
}

/** `length` random hex digits. */
export function randomHex(random: RandomSource, length: number): string {
  const b = random.fill(new Uint8Array(Math.ceil(length / 2)));
  return hexOfBytes(b).slice(0, length);
}
