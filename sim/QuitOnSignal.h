#pragma once
// Makes SIGINT and SIGTERM quit the application's event loop cleanly: the signal handler only
// writes a byte to a socket pair (async-signal-safe) and a QSocketNotifier calls
// QCoreApplication::quit() on the main thread.
// Thread: call once, on the main thread, after the QCoreApplication exists.
namespace sy::sim {

// False if the socket pair or the handlers could not be installed.
bool quitOnTerminationSignals();

} // namespace sy::sim
