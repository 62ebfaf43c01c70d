// What Azure DevOps refuses, known before its client is loaded (the promoter cuts a pull request body to fit).

/** Azure refuses a longer pull request description (400 "cannot be longer than 4000 characters"). */
export const MAX_DESCRIPTION_LENGTH = 4000;
