#!/usr/bin/env python3
# gst-cudabilateral
# Copyright (C) 2026 gst-cudabilateral authors
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""Live preview through cudabilateral, its parameters changed from the keyboard.

The source is a camera (v4l2src) when one is found or --device names one,
else a moving test pattern (SMPTE bars scrolling, with noise blended in so
that there is something to filter). The picture goes through

    SOURCE ! queue ! cudabilateral name=filter ! videoconvert ! SINK

and SINK is autovideosink unless --sink says otherwise.

Keys, when stdin is a terminal (Enter not needed):
    + / -   sigma-color up / down by 5
    ] / [   sigma-space up / down by 1
    d / D   diameter up / down by 2
    m       mode: bilateral <-> gaussian
    g       method: exact <-> grid
    h       the keys
    q, Esc  quit

Headless, for scripts and tests: --sink fakesink --frames N stops after N
frames, and --set FRAME:PROPERTY=VALUE (repeatable) changes a property of
the filter once FRAME frames have been filtered, as a key press would:

    preview.py --source test --sink fakesink --frames 90 --no-keys \\
        --set 10:sigma-color=10 --set 30:sigma-space=3 --set 50:mode=gaussian

Uninstalled, from the source directory, after building into build/:

    meson devenv -C build python3 ../examples/preview.py

Needs PyGObject with GStreamer's typelibs (Debian: python3-gst-1.0,
gir1.2-gst-plugins-base-1.0).

Exit codes (as examples/embed.c):
    0  stopped by q, Ctrl-C or the end of the stream, scripted changes made
    1  cannot run: PyGObject, GStreamer or an element is missing
    2  bad command line
    3  an element posted an error on the bus (no usable CUDA device, a
       nonexistent --cuda-device-id, a camera that cannot be opened, ...)
    4  a check failed: a property did not read back as set, or a scripted
       change was not reached before the end of the stream
    5  no end of stream within --timeout seconds
"""

import argparse
import os
import signal
import sys

KEYS = ("Keys: +/- sigma-color, ]/[ sigma-space, d/D diameter, m mode, "
        "g method, h keys, q quit")

EXIT_OK, EXIT_CANNOT_RUN, EXIT_USAGE, EXIT_ELEMENT_ERROR, EXIT_CHECK, \
    EXIT_TIMEOUT = range(6)

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, GObject, Gst
except (ImportError, ValueError) as e:
    sys.stderr.write(f"ERROR: PyGObject with GStreamer 1.0 is needed ({e}).\n"
                     "Debian: apt install python3-gst-1.0 "
                     "gir1.2-gst-plugins-base-1.0\n")
    sys.exit(EXIT_CANNOT_RUN)


def parse_args():
    p = argparse.ArgumentParser(
        description="Live preview through cudabilateral, keyboard control.",
        epilog=KEYS)
    p.add_argument("--source", choices=["auto", "camera", "test"],
                   default="auto",
                   help="camera, test pattern, or a camera when one is found "
                        "(default)")
    p.add_argument("--device", help="camera device, e.g. /dev/video0 "
                                    "(implies --source camera)")
    p.add_argument("--size", default="1280x720",
                   help="test pattern size, WxH (default 1280x720)")
    p.add_argument("--fps", type=int, default=30,
                   help="test pattern frame rate (default 30)")
    p.add_argument("--noise", type=float, default=0.25,
                   help="test pattern: weight of the noise blended in, 0-1 "
                        "(default 0.25; 0 = none)")
    p.add_argument("--sink", default="autovideosink",
                   help="sink element with its properties (default "
                        "autovideosink; fakesink for no window)")
    p.add_argument("--frames", type=int, default=0,
                   help="stop after this many frames (default 0: run until q)")
    p.add_argument("--diameter", type=int, default=9)
    p.add_argument("--sigma-color", type=float, default=30.0)
    p.add_argument("--sigma-space", type=float, default=5.0)
    p.add_argument("--mode", default="bilateral",
                   choices=["bilateral", "gaussian"])
    p.add_argument("--method", default="exact", choices=["exact", "grid"])
    p.add_argument("--cuda-device-id", type=int, default=-1,
                   help="CUDA device (default -1: the first)")
    p.add_argument("--set", action="append", default=[],
                   metavar="FRAME:PROPERTY=VALUE",
                   help="change a property of the filter once FRAME frames "
                        "are filtered (repeatable)")
    p.add_argument("--no-keys", action="store_true",
                   help="do not read keys even when stdin is a terminal")
    p.add_argument("--timeout", type=float, default=0,
                   help="give up after this many seconds (default 0: never)")
    args = p.parse_args()

    try:
        args.width, args.height = (int(v) for v in args.size.split("x"))
        if args.width <= 0 or args.height <= 0:
            raise ValueError
    except ValueError:
        p.error(f"--size: expected WIDTHxHEIGHT, got {args.size!r}")
    if args.fps <= 0 or args.frames < 0 or not 0 <= args.noise <= 1:
        p.error("--fps must be positive, --frames 0 or more, --noise 0 to 1")
    changes = []
    for item in args.set:
        try:
            frame, assignment = item.split(":", 1)
            prop, value = assignment.split("=", 1)
            changes.append((int(frame), prop, value))
        except ValueError:
            p.error(f"--set: expected FRAME:PROPERTY=VALUE, got {item!r}")
    args.changes = sorted(changes, key=lambda c: c[0])
    if args.device:
        args.source = "camera"
    return args


def find_camera():
    """The device node of the first camera GStreamer's device monitor lists,
    or None."""
    monitor = Gst.DeviceMonitor.new()
    monitor.add_filter("Video/Source", Gst.Caps.from_string("video/x-raw"))
    if not monitor.start():
        return None
    try:
        for device in monitor.get_devices():
            props = device.get_properties()
            for key in ("device.path", "api.v4l2.path"):
                path = props.get_string(key) if props else None
                if path:
                    return path
    finally:
        monitor.stop()
    return None


def source_description(args):
    """The part of the launch line up to the filter, as gst-launch-1.0
    writes it."""
    limit = f" num-buffers={args.frames}" if args.frames else ""
    if args.source in ("auto", "camera") and not args.device:
        args.device = find_camera()
        if args.device:
            print(f"Camera: {args.device}")
        elif args.source == "camera":
            sys.stderr.write("ERROR: no camera found (use --device)\n")
            sys.exit(EXIT_CANNOT_RUN)
    if args.device:
        # Raw frames (a camera that gives only MJPEG would need jpegdec).
        # videoconvert converts only where the camera's format is not one
        # the filter takes: YUY2, NV12, I420, ... pass through untouched.
        return (f'v4l2src device="{args.device}"{limit} ! video/x-raw '
                "! videoconvert")
    print("No camera: a test pattern")
    caps = (f"video/x-raw,format=RGBA,width={args.width},"
            f"height={args.height},framerate={args.fps}/1")
    # is-live: frames come at their frame rate, as from a camera.
    # horizontal-speed scrolls the bars so that the picture moves.
    bars = (f"videotestsrc is-live=true pattern=smpte horizontal-speed=4"
            f"{limit} ! {caps}")
    if args.noise == 0:
        return bars
    # Noise: a second test source of random gray pixels (pattern=snow)
    # blended over the bars by compositor with a weight of --noise. The
    # branches are linked to compositor's pads by name; its output is where
    # the rest of the launch line goes on.
    return (f"{bars} ! mix.sink_0 "
            f"videotestsrc is-live=true pattern=snow{limit} ! {caps} "
            "! mix.sink_1 "
            f"compositor name=mix sink_1::alpha={args.noise} ! {caps}")


class Preview:
    def __init__(self, args):
        self.args = args
        self.loop = GLib.MainLoop()
        self.exit_code = None
        self.filtered = 0           # frames out of the filter
        self.pending = list(args.changes)
        self.saved_tty = None

        # A short queue that drops old frames when the GPU or the sink
        # falls behind: a preview shows the newest frame rather than
        # building up latency.
        description = (
            f"{source_description(args)} "
            "! queue max-size-buffers=2 max-size-time=0 max-size-bytes=0 "
            "leaky=downstream "
            f"! cudabilateral name=filter diameter={args.diameter} "
            f"sigma-color={args.sigma_color} sigma-space={args.sigma_space} "
            f"mode={args.mode} method={args.method} "
            f"cuda-device-id={args.cuda_device_id} "
            f"! videoconvert ! {args.sink}")
        try:
            self.pipeline = Gst.parse_launch(description)
        except GLib.Error as e:
            # A missing element: not installed, or (for cudabilateral) the
            # uninstalled build's gst/ not in GST_PLUGIN_PATH.
            sys.stderr.write(f"ERROR: cannot build the pipeline: {e.message}\n"
                             f"  {description}\n")
            sys.exit(EXIT_CANNOT_RUN)
        self.filter = self.pipeline.get_by_name("filter")
        for frame, name, value in self.pending:
            if not self.filter.find_property(name):
                sys.stderr.write(f"ERROR: --set {frame}:{name}={value}: "
                                 f"cudabilateral has no property {name}\n")
                sys.exit(EXIT_USAGE)
        # Count the frames the filter pushes, on the streaming thread.
        self.filter.get_static_pad("src").add_probe(
            Gst.PadProbeType.BUFFER, self.on_frame)

    # --- property changes, from keys or --set, on the main thread ---

    def set_property(self, name, value):
        """Sets a property of the filter from its string form, as
        gst-launch-1.0 would, and reads it back."""
        Gst.util_set_object_arg(self.filter, name, str(value))
        got = self.property_string(name)
        if not self.same(name, value, got):
            # GObject refuses values outside a property's range (with a
            # warning) and keeps the old one.
            sys.stderr.write(f"ERROR: set {name}={value}, read back {got}\n")
            self.stop(EXIT_CHECK)
            return False
        return True

    def property_string(self, name):
        value = self.filter.get_property(name)
        if hasattr(value, "value_nick"):     # an enum
            return value.value_nick
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)

    def same(self, name, wanted, got):
        """Whether the read-back string form @got is the value @wanted."""
        value_type = self.filter.find_property(name).value_type
        try:
            if value_type in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT):
                return float(wanted) == float(got)
            if value_type in (GObject.TYPE_INT, GObject.TYPE_UINT):
                return int(wanted) == int(got)
        except ValueError:
            return False
        if value_type == GObject.TYPE_BOOLEAN:
            wanted = "true" if str(wanted).lower() in ("true", "yes", "1") \
                else "false"
        return str(wanted) == got

    def print_values(self, prefix=""):
        values = "  ".join(f"{n} {self.property_string(n)}" for n in
                           ("sigma-color", "sigma-space", "diameter", "mode",
                            "method"))
        print(f"{prefix}{values}", flush=True)

    def step(self, name, delta, low, high):
        value = self.filter.get_property(name) + delta
        value = min(max(value, low), high)
        if self.set_property(name, value):
            self.print_values()

    def toggle(self, name, a, b):
        value = b if self.property_string(name) == a else a
        if self.set_property(name, value):
            self.print_values()

    # --- frames, on the streaming thread ---

    def on_frame(self, pad, info):
        self.filtered += 1
        # The change itself is made on the main thread, like a key press.
        while self.pending and self.pending[0][0] <= self.filtered:
            GLib.idle_add(self.apply_scripted, self.pending.pop(0))
        return Gst.PadProbeReturn.OK

    def apply_scripted(self, change):
        frame, name, value = change
        if self.set_property(name, value):
            self.print_values(f"frame {frame}: {name}={value} -> ")
        return GLib.SOURCE_REMOVE

    # --- keys ---

    def on_key(self, fd, condition):
        for key in os.read(fd, 32).decode(errors="replace"):
            if key in "+=":
                self.step("sigma-color", 5.0, 0.0, 1000.0)
            elif key == "-":
                self.step("sigma-color", -5.0, 0.0, 1000.0)
            elif key == "]":
                self.step("sigma-space", 1.0, 0.0, 200.0)
            elif key == "[":
                self.step("sigma-space", -1.0, 0.0, 200.0)
            elif key == "d":
                self.step("diameter", 2, 1, 255)
            elif key == "D":
                self.step("diameter", -2, 1, 255)
            elif key == "m":
                self.toggle("mode", "bilateral", "gaussian")
            elif key == "g":
                self.toggle("method", "exact", "grid")
            elif key in "hH?":
                print(KEYS, flush=True)
            elif key in "qQ\x1b":
                print("quit")
                self.stop(EXIT_OK)
        return GLib.SOURCE_CONTINUE

    def keys_on(self):
        import termios
        import tty
        fd = sys.stdin.fileno()
        self.saved_tty = termios.tcgetattr(fd)
        # cbreak: keys arrive one at a time without Enter, and Ctrl-C still
        # sends SIGINT. Output processing stays on, so print works as usual.
        tty.setcbreak(fd)
        GLib.io_add_watch(fd, GLib.PRIORITY_DEFAULT, GLib.IO_IN, self.on_key)
        print(KEYS, flush=True)

    def keys_off(self):
        if self.saved_tty is not None:
            import termios
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN,
                              self.saved_tty)
            self.saved_tty = None

    # --- the bus and the main loop ---

    def stop(self, code):
        # The first reason to stop is the one reported.
        if self.exit_code is None:
            self.exit_code = code
        self.loop.quit()

    def report_error(self, msg):
        err, debug = msg.parse_error()
        sys.stderr.write(f"ERROR from element {msg.src.get_name()}: "
                         f"{err.message}\n"
                         f"Debugging information: {debug or 'none'}\n")
        self.stop(EXIT_ELEMENT_ERROR)

    def on_message(self, bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            self.report_error(msg)
        elif msg.type == Gst.MessageType.WARNING:
            err, debug = msg.parse_warning()
            sys.stderr.write(f"WARNING from element {msg.src.get_name()}: "
                             f"{err.message} ({debug or ''})\n")
        elif msg.type == Gst.MessageType.EOS:
            print(f"End of stream: {self.filtered} frames filtered")
            if self.pending:
                sys.stderr.write(f"ERROR: {len(self.pending)} scripted "
                                 "change(s) not reached: only "
                                 f"{self.filtered} frames\n")
                self.stop(EXIT_CHECK)
            else:
                self.stop(EXIT_OK)
        return GLib.SOURCE_CONTINUE

    def on_timeout(self):
        sys.stderr.write(f"ERROR: no end of stream within {self.args.timeout}"
                         f" s ({self.filtered} frames filtered)\n")
        self.stop(EXIT_TIMEOUT)
        return GLib.SOURCE_REMOVE

    def on_signal(self):
        print("interrupted")
        self.stop(EXIT_OK)
        return GLib.SOURCE_REMOVE

    def run(self):
        bus = self.pipeline.get_bus()
        bus.add_watch(GLib.PRIORITY_DEFAULT, self.on_message)
        for signum in (signal.SIGINT, signal.SIGTERM):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signum, self.on_signal)
        if self.args.timeout > 0:
            GLib.timeout_add(int(self.args.timeout * 1000), self.on_timeout)
        self.print_values("start: ")
        try:
            # The element acquires its CUDA device while going from READY
            # to PAUSED, inside this call: on failure its error message is
            # already on the bus.
            if self.pipeline.set_state(Gst.State.PLAYING) == \
                    Gst.StateChangeReturn.FAILURE:
                msg = bus.pop_filtered(Gst.MessageType.ERROR)
                if msg:
                    self.report_error(msg)
                else:
                    sys.stderr.write("ERROR: the pipeline did not start, and "
                                     "no element said why\n")
                    self.stop(EXIT_ELEMENT_ERROR)
            else:
                if sys.stdin.isatty() and not self.args.no_keys:
                    self.keys_on()
                self.loop.run()
        finally:
            # The terminal as it was, whatever happened.
            self.keys_off()
            self.pipeline.set_state(Gst.State.NULL)
            bus.remove_watch()
        return self.exit_code or EXIT_OK


def main():
    args = parse_args()
    Gst.init(None)
    return Preview(args).run()

if __name__ == "__main__":
    sys.exit(main())
