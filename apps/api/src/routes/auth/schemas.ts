import { HTTP_URL_PATTERN, PASSWORD_MAX, PASSWORD_MIN, UserShape as User } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { EMAIL_PATTERN, Nullable, VisibleText } from '../../lib/schemas.js';

export {
  RoleShape as RoleSchema,
  UserExportShape as UserExport,
  UserShape as User,
  UserStatusShape as UserStatus,
} from '@cfaq/core';

const Email = T.String({ maxLength: 254, pattern: EMAIL_PATTERN, description: 'email address' });
const Password = T.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, description: `${PASSWORD_MIN}-${PASSWORD_MAX} characters` });
const Name = VisibleText(1, 100);

export const RegisterBody = T.Object({ email: Email, password: Password, name: Name }, { additionalProperties: false });
export const LoginBody = T.Object(
  { email: T.String({ minLength: 1, maxLength: 254 }), password: T.String({ minLength: 1, maxLength: PASSWORD_MAX }) },
  { additionalProperties: false },
);
const RefreshToken = T.String({ minLength: 16, maxLength: 256 });
export const RefreshBody = T.Object({ refreshToken: RefreshToken }, { additionalProperties: false });
export const LogoutBody = T.Object(
  {
    refreshToken: RefreshToken,
    allSessions: T.Optional(T.Boolean({ description: "true: revoke every refresh token of the token's owner (sign out everywhere)" })),
  },
  { additionalProperties: false },
);
export const PasswordBody = T.Object(
  { currentPassword: T.String({ minLength: 1, maxLength: PASSWORD_MAX }), newPassword: Password },
  { additionalProperties: false },
);
export const ProfileBody = T.Object(
  {
    name: T.Optional(Name),
    bio: T.Optional(Nullable(T.String({ maxLength: 2000 }))),
    avatarUrl: T.Optional(
      Nullable(
        T.String({
          format: 'uri',
          maxLength: 2048,
          pattern: HTTP_URL_PATTERN,
          description: 'an http(s) URL with a host',
        }),
      ),
    ),
  },
  { additionalProperties: false, description: 'Only name, bio and avatarUrl; role, reputation and status are not settable.' },
);

export const Session = T.Object({
  accessToken: T.String({ description: 'JWT (HS256), Authorization: Bearer; lifetime JWT_ACCESS_TTL_SECONDS (default 900 s)' }),
  refreshToken: T.String({
    description: 'opaque, single use: POST /auth/refresh rotates it; lifetime JWT_REFRESH_TTL_DAYS (default 30 days)',
  }),
  expiresIn: T.Integer({ description: 'access token lifetime in seconds' }),
  user: User,
});
export const TwoFactorChallenge = T.Object({
  twoFactorRequired: T.Literal(true),
  challengeToken: T.String({ description: 'complete at POST /auth/2fa/verify within 5 minutes' }),
});
export const LoginResponse = T.Union([Session, TwoFactorChallenge]);

export const TwoFactorSetup = T.Object({
  secret: T.String({ description: 'base32 TOTP secret (SHA-1, 6 digits, 30 s)' }),
  otpauthUrl: T.String({ description: 'otpauth:// URI for a QR code' }),
});
const Code = T.String({ minLength: 6, maxLength: 32, description: '6-digit TOTP code (or, where accepted, a recovery code)' });
export const CodeBody = T.Object({ code: Code }, { additionalProperties: false });
export const TwoFactorVerifyBody = T.Object(
  { challengeToken: T.String({ minLength: 1, maxLength: 2048 }), code: Code },
  { additionalProperties: false },
);
export const RecoveryCodes = T.Object({
  recoveryCodes: T.Array(T.String(), { description: 'shown once; each works once in place of a code' }),
});
