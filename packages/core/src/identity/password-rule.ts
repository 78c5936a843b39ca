/** The length rule of every password: registration, a password change, and ADMIN_PASSWORD at start. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
