@echo off
rem capture-desk.cmd: Capture Desk's command line in an installed app, the way VS Code ships code.cmd.
rem Shipped at INSTALL_DIR\resources\bin\capture-desk.cmd; %~dp0 is that folder (with a trailing
rem backslash) wherever the app was installed, spaces and "(x86)" included, so every path below is
rem quoted and no parenthesised block ever expands one.
rem   capture-desk                    starts the desktop app
rem   capture-desk --some-switch ...  a first argument that is a switch: the desktop app, with it
rem   capture-desk COMMAND ...        the CLI (capture-desk --help lists the commands)
rem The CLI runs on the app's own Electron binary with ELECTRON_RUN_AS_NODE=1: plain Node loading the
rem app's own native modules, no Node install needed.
setlocal
set "CAPTURE_DESK_EXE=%~dp0..\..\Capture Desk.exe"
set "CAPTURE_DESK_CLI=%~dp0..\app.asar\dist\cli\capture-desk.js"
if not exist "%CAPTURE_DESK_EXE%" goto missing
if "%~1"=="" goto gui
if "%~1"=="-h" goto cli
if "%~1"=="--help" goto cli
if "%~1"=="-v" goto cli
if "%~1"=="--version" goto cli
set "CAPTURE_DESK_FIRST=%~1"
if "%CAPTURE_DESK_FIRST:~0,1%"=="-" goto gui
:cli
set ELECTRON_RUN_AS_NODE=1
"%CAPTURE_DESK_EXE%" "%CAPTURE_DESK_CLI%" %*
exit /b %ERRORLEVEL%
:gui
set ELECTRON_RUN_AS_NODE=
start "" "%CAPTURE_DESK_EXE%" %*
exit /b 0
:missing
echo capture-desk: the Capture Desk app is missing at "%CAPTURE_DESK_EXE%"; reinstall Capture Desk. 1>&2
exit /b 1
