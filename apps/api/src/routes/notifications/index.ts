import {
  getNotificationSettings,
  listNotifications,
  listTeaDrops,
  markAllNotificationsRead,
  markAllTeaRead,
  markNotificationRead,
  markTeaRead,
  NOTIFICATION_KINDS,
  teaUnreadCount,
  updateNotificationSettings,
} from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import {
  NotificationList,
  NotificationQuery,
  Notification as NotificationSchema,
  ProgramQuery,
  Settings,
  SettingsBody,
  TeaList,
  TeaRead,
  UnreadCount,
  Updated,
} from './schemas.js';
import { notificationStream } from './stream.js';

const tags = ['notifications'];
const KINDS = `Kinds: ${Object.entries(NOTIFICATION_KINDS)
  .map(([k, v]) => `${k} (${v})`)
  .join('; ')}.`;
const mine = problemResponses(404);

/** The caller's own notifications, settings and tea drops (signed in). */
export const notificationRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/notifications',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'My notifications, newest first',
        description: `All programs unless batchId is given. ${KINDS}`,
        querystring: NotificationQuery,
        response: { 200: NotificationList, ...mine },
      },
    },
    async (request) => listNotifications(ctx, signedIn(request).id, request.query),
  );

  app.put(
    '/notifications/read-all',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Mark all my notifications read (one program with batchId)',
        querystring: ProgramQuery,
        response: { 200: Updated, ...mine },
      },
    },
    async (request) => markAllNotificationsRead(ctx, signedIn(request).id, request.query),
  );

  app.get(
    '/notifications/settings',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'My notification settings', description: KINDS, response: { 200: Settings, ...mine } },
    },
    async (request) => getNotificationSettings(ctx, signedIn(request).id),
  );

  app.put(
    '/notifications/settings',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Change my notification settings',
        description: `Partial: absent fields keep their value; kinds merge. A kind switched off is not written for you. Unknown kinds: 400. ${KINDS}`,
        body: SettingsBody,
        response: { 200: Settings, ...mine },
      },
    },
    async (request) => updateNotificationSettings(ctx, signedIn(request).id, request.body),
  );

  for (const url of ['/notifications/tea', '/tea/drops']) {
    app.get(
      url,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: "The program's tea drops for me, newest first",
          description: 'Your personal drops in the program and the program-wide ones (default program without batchId).',
          querystring: NotificationQuery,
          response: { 200: TeaList, ...mine },
        },
      },
      async (request) => listTeaDrops(ctx, signedIn(request).id, request.query),
    );
  }

  app.get(
    '/notifications/tea/unread-count',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Unread tea drops in the program', querystring: ProgramQuery, response: { 200: UnreadCount, ...mine } },
    },
    async (request) => teaUnreadCount(ctx, signedIn(request).id, request.query),
  );

  app.patch(
    '/notifications/tea/read-all',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Mark every tea drop of the program read', querystring: ProgramQuery, response: { 200: Updated, ...mine } },
    },
    async (request) => markAllTeaRead(ctx, signedIn(request).id, request.query),
  );

  app.patch(
    '/notifications/tea/:id/read',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Mark a tea drop read',
        description: "Another user's personal drop: 404.",
        params: IdParams,
        response: { 200: TeaRead, ...mine },
      },
    },
    async (request) => markTeaRead(ctx, signedIn(request).id, request.params.id),
  );

  app.put(
    '/notifications/:id/read',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Mark one of my notifications read',
        description: "Another user's id: 404.",
        params: IdParams,
        response: { 200: NotificationSchema, ...mine },
      },
    },
    async (request) => markNotificationRead(ctx, signedIn(request).id, request.params.id),
  );

  await app.register(notificationStream);
};
