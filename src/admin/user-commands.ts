// `user list`, `user reset-password EMAIL`, `user disable EMAIL` (`user create` is in commands.ts).
import { disableStaff, listStaff, resetStaffPassword } from '../modules/console/staff-admin.ts';
import { StaffInputError } from '../modules/console/staff-service.ts';
import { type CommandContext, CommandError } from './command-context.ts';

/** What the commands answer, as the CLI prints them (cli/user.ts). */
export type { StaffListing } from '../modules/console/staff-admin.ts';
export type StaffReset = Awaited<ReturnType<typeof resetStaffPassword>>;
export type StaffDisabled = Awaited<ReturnType<typeof disableStaff>>;

async function asCommand<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof StaffInputError ? new CommandError(err.message) : err;
  }
}

export const userCommands: Record<
  string,
  (ctx: CommandContext, args: Record<string, unknown>) => Promise<unknown>
> = {
  'user list': async (ctx) => ({ users: await listStaff(ctx.db) }),
  'user reset-password': (ctx, args) => asCommand(() => resetStaffPassword(ctx.db, String(args.email ?? ''))),
  'user disable': (ctx, args) => asCommand(() => disableStaff(ctx.db, String(args.email ?? ''))),
};
