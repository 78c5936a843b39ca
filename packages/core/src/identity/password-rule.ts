/** The length rule of every password: registration, a password change, and ADMIN_PASSWORD at start. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** Whether a password has an allowed length, counted in characters (code points) as the schemas count (an emoji is one). */
export function passwordLengthAllowed(password: string): boolean {
  const length = [...password].length;
  return length >= PASSWORD_MIN && length <= PASSWORD_MAX;
}
