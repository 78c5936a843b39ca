import {
  type AuditBy,
  createProgram,
  deleteProgram,
  getProgram,
  getProgramBySlug,
  getProgramSettings,
  listPrograms,
  putProgramSettings,
  setDefaultProgram,
  setProgramArchived,
  updateProgram,
} from '@cfaq/core';
import type { FastifyRequest } from 'fastify';
import { actorOf, signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import {
  CreateProgramBody,
  IncludeArchived,
  ListProgramsQuery,
  Program,
  ProgramSettings,
  ProgramSettingsBody,
  SlugParams,
  UpdateProgramBody,
} from './schemas.js';

const tags = ['programs'];
/** Archived (and deleted) programs are shown only to admins who ask for them. */
const adminAsks = (request: FastifyRequest, q: { includeArchived?: boolean | undefined }) =>
  !!q.includeArchived && actorOf(request)?.role === 'admin';

/** The admin-log author of a write: the caller and their address. */
const by = (request: FastifyRequest): AuditBy => {
  const { id, ip } = signedIn(request);
  return { actorId: id, ip };
};

/** Programs (the spec's batches) and their settings. Reads are public; writes are admin. */
export const programRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/batches',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'List programs',
        querystring: ListProgramsQuery,
        response: { 200: listOf(Program) },
      },
    },
    async (request) => listPrograms(ctx, { ...request.query, includeArchived: adminAsks(request, request.query) }),
  );

  app.get(
    '/batches/by-slug/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'A program by its slug',
        params: SlugParams,
        querystring: IncludeArchived,
        response: { 200: Program, ...problemResponses(404) },
      },
    },
    async (request) => getProgramBySlug(ctx, request.params.slug, { includeArchived: adminAsks(request, request.query) }),
  );

  app.get(
    '/batches/:id',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'A program by id (archived ones only to admins who pass includeArchived)',
        params: IdParams,
        querystring: IncludeArchived,
        response: { 200: Program, ...problemResponses(404) },
      },
    },
    async (request) => getProgram(ctx, request.params.id, { includeArchived: adminAsks(request, request.query) }),
  );

  app.post(
    '/batches',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a program',
        body: CreateProgramBody,
        response: { 201: Program, ...problemResponses(422) },
      },
    },
    async (request, reply) => reply.status(201).send(await createProgram(ctx, request.body, by(request))),
  );

  app.patch(
    '/batches/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Edit a program (a new name gives a new slug)',
        params: IdParams,
        body: UpdateProgramBody,
        response: { 200: Program, ...problemResponses(404, 422) },
      },
    },
    async (request) => updateProgram(ctx, request.params.id, request.body, by(request)),
  );

  app.post(
    '/batches/:id/default',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Make this the default program',
        params: IdParams,
        response: { 200: Program, ...problemResponses(404, 422) },
      },
    },
    async (request) => setDefaultProgram(ctx, request.params.id, by(request)),
  );

  app.post(
    '/batches/:id/archive',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Archive a program (hidden from public reads, data kept)',
        params: IdParams,
        response: { 200: Program, ...problemResponses(404, 422) },
      },
    },
    async (request) => setProgramArchived(ctx, request.params.id, true, by(request)),
  );

  app.post(
    '/batches/:id/unarchive',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Unarchive a program',
        params: IdParams,
        response: { 200: Program, ...problemResponses(404) },
      },
    },
    async (request) => setProgramArchived(ctx, request.params.id, false, by(request)),
  );

  app.delete(
    '/batches/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a program (soft delete)',
        params: IdParams,
        response: { 204: { type: 'null' }, ...problemResponses(404, 422) },
      },
    },
    async (request, reply) => {
      await deleteProgram(ctx, request.params.id, by(request));
      return reply.status(204).send();
    },
  );

  app.get(
    '/batches/:id/settings',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "A program's settings (the defaults when it has none)",
        params: IdParams,
        querystring: IncludeArchived,
        response: { 200: ProgramSettings, ...problemResponses(404) },
      },
    },
    async (request) => getProgramSettings(ctx, request.params.id, { includeArchived: adminAsks(request, request.query) }),
  );

  app.put(
    '/batches/:id/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Replace a program's settings",
        params: IdParams,
        body: ProgramSettingsBody,
        response: { 200: ProgramSettings, ...problemResponses(404) },
      },
    },
    async (request) => putProgramSettings(ctx, request.params.id, request.body, by(request)),
  );
};
