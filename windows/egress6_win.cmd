@echo off
rem egress6_win.cmd: run egress6_win.py with administrator rights, asking for them when missing.
rem   egress6_win.cmd              the three questions are asked
rem   egress6_win.cmd ct y y       unattended (operator, renew, re-check); options as in --help
rem Keep egress6_win.py in the same folder (or run this from windows\ in the source tree).
setlocal
rem saved before the shifts below, which move %0 too
set "SELF=%~f0"
set "SELFNAME=%~nx0"
set "SCRIPT=%~dp0egress6_win.py"
if not exist "%SCRIPT%" set "SCRIPT=%~dp0..\bin\egress6_win.py"
if exist "%SCRIPT%" goto found
rem (no parenthesised block: a folder like "Program Files (x86)" would end it early)
echo egress6_win.py not found: put it in the folder of %SELFNAME%, %~dp0
pause
exit /b 2
:found

rem started by the elevation below: pause at the end, so the new window can be read
set "PAUSE_AT_END="
set "ELEVATED="
if /i "%~1"=="/elevated" (
    set "PAUSE_AT_END=1"
    set "ELEVATED=1"
    shift
)
if "%~1"=="" set "PAUSE_AT_END=1"
set "ARGS="
:collect
if "%~1"=="" goto collected
set ARGS=%ARGS% %1
shift
goto collect
:collected

rem fltmc works only with administrator rights: without them, ask (UAC) and start again, once
fltmc >nul 2>&1
if errorlevel 1 if not defined ELEVATED goto elevate

rem isolated, site-less Python (-I -S): no PYTHON* variables, no site-packages, a faster start
set "PYTHON=py -3 -I -S"
where py >nul 2>&1 || set "PYTHON=python -I -S"
%PYTHON% "%SCRIPT%"%ARGS%
set "STATUS=%errorlevel%"
if defined PAUSE_AT_END pause
exit /b %STATUS%

:elevate
echo Administrator rights are needed to delete addresses; Windows will ask for them.
powershell -NoProfile -Command "Start-Process -FilePath '%SELF%' -ArgumentList '/elevated%ARGS%' -Verb RunAs"
if errorlevel 1 (
    echo Not started: administrator rights were refused. Right-click %SELFNAME% and choose Run as administrator.
    pause
    exit /b 1
)
exit /b 0
