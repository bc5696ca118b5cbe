#!/usr/bin/env python3
"""Reads back the VTK image data `haloflow run --vtk` wrote, with VTK's own readers (the ones
ParaView uses), and checks it.

usage: check_vtk.py RUN_DIR NAME --steps S0,S1,... --ranks R --whole "X0 X1 Y0 Y1 Z0 Z1"
                    --origin "X Y Z" --spacing "X Y Z" --centring points|cells
                    --arrays NAME:COMPONENTS,... [--precision float32|float64]
                    [--compression zlib|none] [--dump FILE --dump-type float32|float64]
                    [--physics heat3d|jacobi2d|euler2d-vortex]

RUN_DIR/NAME.pvd lists exactly the steps asked for (vtk/NAME_<step>.pvti, each with its time);
each .pvti, read by vtkXMLPImageDataReader, has the whole extent, origin and spacing given, the
arrays as point or cell data, the TimeValue of its .pvd entry, and R pieces; each piece's .vti,
read alone by vtkXMLImageDataReader, declares its own extent (WholeExtent too) and holds exactly
the .pvti's values there, in the precision and compression given (default float32, zlib, as
haloflow writes them by default); the pieces cover the whole
extent. Every value is finite. --dump: the last output equals the raw global field --dump wrote
(euler2d's velocity, pressure and Mach number computed from its conserved fields). --physics:
the first output (step 0) is the model's initial state evaluated at the coordinates VTK gives its
points or cells (so origin, spacing and centring are physically right), and for heat3d the last
output is the decayed mode within the run's error_max. Each .vti is at most its values' bytes and
a few KiB of XML. Exit 77 (skipped) when python's vtk cannot be imported.
"""
import array
import json
import math
import os
import re
import sys
from xml.dom import minidom

try:
    from vtkmodules.vtkIOXML import vtkXMLImageDataReader, vtkXMLPImageDataReader
except ImportError:
    print("check_vtk: skipped: python's vtk is not importable (Debian: python3-vtk9; PyPI: vtk)")
    sys.exit(77)

GAMMA = 1.4
XML_BYTES = 4096  # a .vti's XML and block headers: what it may hold beside its values


def numbers(text, kind=float):
    return [kind(v) for v in text.split()]


def close(a, b, tolerance=1e-12):
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def samples(extent, centring):
    count = 1
    for axis in range(3):
        points = extent[2 * axis + 1] - extent[2 * axis] + 1
        count *= points if centring == "points" else max(points - 1, 1)
    return count


def vti_head(path):
    """The XML part of a .vti with appended data (the binary after it is no XML)."""
    with open(path, "rb") as stream:
        data = stream.read()
    head = data[:data.index(b"<AppendedData")].decode("ascii")
    return minidom.parseString(head + "</VTKFile>").documentElement, len(data)


def arrays_of(image, centring):
    data = image.GetPointData() if centring == "points" else image.GetCellData()
    out = {}
    for k in range(data.GetNumberOfArrays()):
        a = data.GetArray(k)
        out[a.GetName()] = (a.GetNumberOfComponents(), memoryview(a).tolist(), a.GetDataTypeAsString())
    return out


def time_value(image):
    field = image.GetFieldData().GetArray("TimeValue")
    return None if field is None else field.GetValue(0)


def flat(values):
    """memoryview.tolist() of a vector array is a list of tuples."""
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(v)
        else:
            out.append(v)
    return out


def read_raw(path, kind):
    values = array.array("f" if kind == "float32" else "d")
    with open(path, "rb") as stream:
        values.frombytes(stream.read())
    return values


def rounded(value, precision):
    return array.array("f", [value])[0] if precision == "float32" else value


class Check:
    def __init__(self):
        self.failures = []

    def fail(self, message):
        if len(self.failures) < 40:
            self.failures.append(message)
        elif len(self.failures) == 40:
            self.failures.append("... and more")


def expected_from_dump(dump, model, whole, centring, arrays, steps_info):
    """The values of the whole extent, per array, from the raw global field."""
    nx, ny, nz = steps_info
    out = {}
    if model in ("heat3d", "jacobi2d"):
        values = []
        for k in range(whole[4], whole[5] + 1):
            for j in range(whole[2], whole[3] + 1):
                for i in range(whole[0], whole[1] + 1):
                    values.append(dump[((k % nz) * ny + (j % ny)) * nx + (i % nx)])
        out[next(iter(arrays))] = values
        return out
    cells = nx * ny
    density, velocity, pressure, mach = [], [], [], []
    for j in range(ny):
        for i in range(nx):
            at = j * nx + i
            rho, mx, my, energy = (dump[f * cells + at] for f in range(4))
            vx, vy = mx / rho, my / rho
            p = (GAMMA - 1.0) * (energy - 0.5 * rho * (vx * vx + vy * vy))
            density.append(rho)
            velocity.extend([vx, vy, 0.0])
            pressure.append(p)
            mach.append(math.sqrt((vx * vx + vy * vy) / (GAMMA * p / rho)))
    return {"density": density, "velocity": velocity, "pressure": pressure, "mach": mach}


def coordinates(image, centring, index):
    if centring == "points":
        return image.GetPoint(index)
    bounds = image.GetCell(index).GetBounds()
    return tuple(0.5 * (bounds[2 * a] + bounds[2 * a + 1]) for a in range(3))


def vortex_density(x, y):
    """Shu's isentropic vortex at t = 0 (strength 5, centre (5, 5)), as euler2d starts it."""
    r2 = (x - 5.0) ** 2 + (y - 5.0) ** 2
    temperature = 1.0 - (GAMMA - 1.0) * 25.0 / (8.0 * GAMMA * math.pi ** 2) * math.exp(1.0 - r2)
    return temperature ** (1.0 / (GAMMA - 1.0))


def physics(check, image, centring, values, kind, results, first, last_time):
    """The state at VTK's own coordinates: step 0 (first) exactly, heat3d's last within error."""
    count = image.GetNumberOfPoints() if centring == "points" else image.GetNumberOfCells()
    worst = 0.0
    for n in range(count):
        x, y, z = coordinates(image, centring, n)
        if kind == "heat3d":
            mode = math.sin(2 * math.pi * x) * math.sin(2 * math.pi * y) * math.sin(2 * math.pi * z)
            if first:
                expected = mode
            else:
                h = results["heat3d"]
                expected = h["amplitude_exact"] * mode
        elif kind == "jacobi2d":
            # The reference's rows sit at y = row / (ny - 1); row ny-1, which closes the periodic
            # axis, is its copy of row 1; the fixed columns x = 0 and 1 hold sin(2 pi row / (ny-1)).
            rows = results["jacobi2d"]["ny"] - 1
            row = round(y * rows)
            fixed = close(x, 0.0, 1e-9) or close(x, 1.0, 1e-9)
            expected = math.sin(2 * math.pi * (1 if row == rows else row) / rows) if fixed else 0.0
        else:
            expected = vortex_density(x, y)
        worst = max(worst, abs(values[n] - expected))
    if first:
        bound = 2e-6  # float32 rounding of values of magnitude 1, and pi rounded to float
        what = "the initial state"
    else:
        bound = results["heat3d"]["error_max"] * (1 + 1e-6) + 2e-6
        what = f"the exact solution at t = {last_time} (error_max {results['heat3d']['error_max']:.3e})"
    if worst > bound:
        check.fail(f"{kind}: the values differ from {what} at VTK's coordinates by {worst:.3e} "
                   f"(allowed {bound:.1e}): origin, spacing or centring misplace them")
    return worst


def main(argv):
    run_dir, name = argv[1], argv[2]
    options = dict(zip(argv[3::2], argv[4::2]))
    steps = [int(s) for s in options["--steps"].split(",")]
    ranks = int(options["--ranks"])
    whole = numbers(options["--whole"], int)
    origin = numbers(options["--origin"])
    spacing = numbers(options["--spacing"])
    centring = options["--centring"]
    arrays = dict((a.split(":")[0], int(a.split(":")[1])) for a in options["--arrays"].split(","))
    precision = options.get("--precision", "float32")
    compression = options.get("--compression", "zlib")  # haloflow's default, as VTK's writer
    check = Check()
    with open(os.path.join(run_dir, "results.json")) as stream:
        results = json.load(stream)
    with open(os.path.join(run_dir, "case.resolved.json")) as stream:
        case = json.load(stream)
    model = case["model"]

    collection = minidom.parse(os.path.join(run_dir, name + ".pvd")).documentElement
    datasets = collection.getElementsByTagName("DataSet")
    files = [d.getAttribute("file") for d in datasets]
    times = [float(d.getAttribute("timestep")) for d in datasets]
    expected_files = [f"vtk/{name}_{step:06d}.pvti" for step in steps]
    if files != expected_files:
        check.fail(f"{name}.pvd lists {files}, expected {expected_files}")
    if times != sorted(times) or len(set(times)) != len(times):
        check.fail(f"{name}.pvd: times {times} not strictly ascending")

    # The last output is the run's final state, named by its step, at its time.
    final = {"heat3d": (None, (results.get("heat3d") or {}).get("t")),
             "euler2d": ((results.get("euler2d") or {}).get("steps_taken"),
                         (results.get("euler2d") or {}).get("t"))}.get(model)
    if final and times:
        step, time = final
        if step is not None and step != steps[-1]:
            check.fail(f"the last output is of step {steps[-1]}; the run took {step} steps")
        if time is not None and not close(times[-1], time):
            check.fail(f"the last output is at t = {times[-1]}; the run ended at {time}")
    if model == "jacobi2d" and times != [float(step) for step in steps]:
        check.fail(f"jacobi2d's times {times} are not its steps {steps}")

    written = set()
    bytes_written = 0
    values_written = 0
    physics_worst = []
    for step, file, time in zip(steps, files, times):
        pvti_path = os.path.join(run_dir, file)
        written.add(os.path.basename(file))
        reader = vtkXMLPImageDataReader()
        reader.SetFileName(pvti_path)
        reader.Update()
        image = reader.GetOutput()
        if list(image.GetExtent()) != whole:
            check.fail(f"{file}: extent {image.GetExtent()}, expected {whole}")
        for axis in range(3):
            if not close(image.GetOrigin()[axis], origin[axis]):
                check.fail(f"{file}: origin {image.GetOrigin()}, expected {origin}")
            if not close(image.GetSpacing()[axis], spacing[axis]):
                check.fail(f"{file}: spacing {image.GetSpacing()}, expected {spacing}")
        whole_arrays = arrays_of(image, centring)
        if {k: v[0] for k, v in whole_arrays.items()} != arrays:
            check.fail(f"{file}: {centring} arrays {sorted(whole_arrays)} "
                       f"{[(k, v[0]) for k, v in whole_arrays.items()]}, expected {arrays}")
            continue
        vtk_type = "float" if precision == "float32" else "double"
        for array_name, (components, values, data_type) in whole_arrays.items():
            if data_type != vtk_type:
                check.fail(f"{file}: {array_name} is {data_type}, expected {vtk_type}")
            if not all(math.isfinite(v) for v in flat(values)):
                check.fail(f"{file}: {array_name}: a value is not finite")
        if time_value(image) is None or not close(time_value(image), time):
            check.fail(f"{file}: TimeValue {time_value(image)}, the .pvd says {time}")

        document = minidom.parse(pvti_path).documentElement
        if document.getAttribute("header_type") != "UInt64":
            check.fail(f"{file}: header_type {document.getAttribute('header_type')!r}")
        pieces = document.getElementsByTagName("Piece")
        if len(pieces) != ranks:
            check.fail(f"{file}: {len(pieces)} pieces, expected {ranks}")
        covered = set()
        nx_w = whole[1] - whole[0] + 1
        ny_w = whole[3] - whole[2] + 1
        for piece in pieces:
            extent = numbers(piece.getAttribute("Extent"), int)
            source = piece.getAttribute("Source")
            written.add(source)
            path = os.path.join(os.path.dirname(pvti_path), source)
            head, size = vti_head(path)
            bytes_written += size
            data = head.getElementsByTagName("ImageData")[0]
            if numbers(data.getAttribute("WholeExtent"), int) != extent:
                check.fail(f"{source}: WholeExtent {data.getAttribute('WholeExtent')!r}, expected "
                           f"the piece's own {extent}")
            wants_compressor = "vtkZLibDataCompressor" if compression == "zlib" else ""
            if head.getAttribute("compressor") != wants_compressor:
                check.fail(f"{source}: compressor {head.getAttribute('compressor')!r}, expected "
                           f"{wants_compressor!r}")
            for a in head.getElementsByTagName("DataArray"):
                if a.getAttribute("Name") != "TimeValue" and a.getAttribute("format") != "appended":
                    check.fail(f"{source}: {a.getAttribute('Name')} is not binary (appended)")
            alone = vtkXMLImageDataReader()
            alone.SetFileName(path)
            alone.Update()
            piece_image = alone.GetOutput()
            if list(piece_image.GetExtent()) != extent:
                check.fail(f"{source} alone: extent {piece_image.GetExtent()}, expected {extent}")
            if time_value(piece_image) is None or not close(time_value(piece_image), time):
                check.fail(f"{source}: TimeValue {time_value(piece_image)}, expected {time}")
            piece_arrays = arrays_of(piece_image, centring)
            n_values = 0
            for array_name, (components, values, _) in piece_arrays.items():
                values = flat(values)
                n_values += len(values)
                whole_values = flat(whole_arrays[array_name][1])
                want = samples(extent, centring) * components
                if len(values) != want:
                    check.fail(f"{source}: {array_name}: {len(values)} values, expected {want}")
                    continue
                # The piece alone holds exactly what the .pvti shows there.
                px = extent[1] - extent[0] + (1 if centring == "points" else 0)
                py = extent[3] - extent[2] + (1 if centring == "points" else 0)
                wx = nx_w if centring == "points" else nx_w - 1
                wy = ny_w if centring == "points" else ny_w - 1
                mismatches = 0
                for n in range(len(values) // components):
                    i, j, k = n % max(px, 1), n // max(px, 1) % max(py, 1), n // max(px * py, 1)
                    gi, gj, gk = i + extent[0] - whole[0], j + extent[2] - whole[2], k + extent[4] - whole[4]
                    g = (gk * max(wy, 1) + gj) * max(wx, 1) + gi
                    covered.add(g)
                    for c in range(components):
                        if values[n * components + c] != whole_values[g * components + c]:
                            mismatches += 1
                if mismatches:
                    check.fail(f"{source}: {array_name}: {mismatches} values differ from the .pvti's")
            values_written += n_values
            value_bytes = n_values * (4 if precision == "float32" else 8)
            if compression == "none" and size > value_bytes + XML_BYTES:
                check.fail(f"{source}: {size} bytes for {n_values} values ({value_bytes} bytes)")
        if len(covered) != samples(whole, centring):
            check.fail(f"{file}: the pieces cover {len(covered)} samples of "
                       f"{samples(whole, centring)}")

        if "--physics" in options and step == steps[0]:
            first = {k: flat(v[1]) for k, v in whole_arrays.items()}
            physics_worst.append(physics(check, image, centring, first[next(iter(arrays))],
                                         options["--physics"], results, True, time))
        if step == steps[-1]:
            last_image = image
            last_arrays = {k: flat(v[1]) for k, v in whole_arrays.items()}
            last_time = time

    if "--physics" in options and options["--physics"] == "heat3d":
        physics_worst.append(physics(check, last_image, centring, last_arrays["u"], "heat3d",
                                     results, False, last_time))
    if "--dump" in options:
        dump = read_raw(options["--dump"], options.get("--dump-type", "float64"))
        section = case[model]
        if model == "jacobi2d":
            shape = (section["nx"], section["ny"] - 2, 1)
        elif model == "heat3d":
            shape = (section["nx"], section["ny"], section["nz"])
        else:
            shape = (section["nx"], section["ny"], 1)
        expected = expected_from_dump(dump, model, whole, centring, arrays, shape)
        worst = 0.0
        for array_name, values in expected.items():
            got = last_arrays[array_name]
            if len(got) != len(values):
                check.fail(f"--dump: {array_name}: {len(got)} values, the dump gives {len(values)}")
                continue
            for a, b in zip(got, values):
                b = rounded(b, precision)
                worst = max(worst, abs(a - b) / max(1.0, abs(b)))
        if worst > 1e-6 if precision == "float32" else worst > 0:
            check.fail(f"--dump: the last output differs from the dumped field by {worst:.3e}")

    listed = set(os.listdir(os.path.join(run_dir, "vtk")))
    if listed != written:
        check.fail(f"vtk/: files {sorted(listed ^ written)} unexpected or missing")
    if re.search(r"\s", name):
        check.fail("a name with spaces")
    for failure in check.failures:
        print("FAILED:", failure)
    per_value = bytes_written / max(values_written, 1)
    print(f"check_vtk: {len(steps)} steps, {ranks} pieces each, {centring} data, {precision} "
          f"{compression}: {per_value:.2f} bytes per value"
          + (f", physics within {max(physics_worst):.2e}" if physics_worst else "")
          + f", {len(check.failures)} failures")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
