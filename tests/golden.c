/* gst-cudabilateral test support: golden files and comparison. */

#include "golden.h"

#include <gst/check/gstcheck.h>
#include <stdio.h>
#include <stdlib.h>

const gchar *
golden_dir (void)
{
  const gchar *env = g_getenv ("CBF_GOLDEN_DIR");
  return env ? env : CBF_GOLDEN_DIR;
}

/* The lines of a cases file, comments and blank lines left out. */
static gchar **
read_case_lines (const gchar * file, gchar ** path)
{
  gchar *text = NULL, **lines, **kept;
  guint i, n = 0;

  *path = g_build_filename (golden_dir (), file, NULL);
  fail_unless (g_file_get_contents (*path, &text, NULL, NULL),
      "cannot read %s", *path);
  lines = g_strsplit (text, "\n", -1);
  kept = g_new0 (gchar *, g_strv_length (lines) + 1);
  for (i = 0; lines[i]; i++)
    if (lines[i][0] != '#' && lines[i][0] != '\0')
      kept[n++] = g_strdup (lines[i]);
  fail_unless (n > 0, "no cases in %s", *path);
  g_strfreev (lines);
  g_free (text);
  return kept;
}

/* Reads a case file of GoldenCase lines: bilateral ones (cases.txt) have a
 * sigma_color column, Gaussian ones (gaussian_cases.txt) do not. */
static GoldenCase *
load_cases (const gchar * file, gboolean with_sigma_color, guint * n_cases)
{
  gchar *path;
  gchar **lines = read_case_lines (file, &path);
  GArray *cases = g_array_new (TRUE, TRUE, sizeof (GoldenCase));
  guint i;

  for (i = 0; lines[i]; i++) {
    GoldenCase c = { 0, };
    gchar name[256], input[256], output[256];
    gboolean ok = with_sigma_color ?
        sscanf (lines[i], "%255s %d %d %d %d %lf %lf %255s %255s", name,
        &c.channels, &c.width, &c.height, &c.diameter, &c.sigma_color,
        &c.sigma_space, input, output) == 9 :
        sscanf (lines[i], "%255s %d %d %d %d %lf %255s %255s", name,
        &c.channels, &c.width, &c.height, &c.diameter, &c.sigma_space, input,
        output) == 8;

    fail_unless (ok, "malformed line %u of %s: %s", i + 1, path, lines[i]);
    c.name = g_strdup (name);
    c.input = g_strdup (input);
    c.output = g_strdup (output);
    g_array_append_val (cases, c);
  }
  *n_cases = cases->len;
  g_strfreev (lines);
  g_free (path);
  return (GoldenCase *) g_array_free (cases, FALSE);
}

GoldenCase *
golden_load_cases (guint * n_cases)
{
  return load_cases ("cases.txt", TRUE, n_cases);
}

GoldenCase *
golden_load_gaussian_cases (guint * n_cases)
{
  return load_cases ("gaussian_cases.txt", FALSE, n_cases);
}

void
golden_free_cases (GoldenCase * cases)
{
  GoldenCase *c;

  for (c = cases; c->name; c++) {
    g_free (c->name);
    g_free (c->input);
    g_free (c->output);
  }
  g_free (cases);
}

GoldenYuvCase *
golden_load_yuv_cases (guint * n_cases)
{
  gchar *path;
  gchar **lines = read_case_lines ("yuv_cases.txt", &path);
  GArray *cases = g_array_new (TRUE, TRUE, sizeof (GoldenYuvCase));
  guint i, p;

  for (i = 0; lines[i]; i++) {
    GoldenYuvCase c = { 0, };
    gchar name[256], files[6][256];

    fail_unless (sscanf (lines[i], "%255s %d %d %d %d %lf %lf %d %lf "
            "%255s %255s %255s %255s %255s %255s", name, &c.subsampling,
            &c.width, &c.height, &c.diameter, &c.sigma_color, &c.sigma_space,
            &c.chroma_diameter, &c.chroma_sigma_space, files[0], files[1],
            files[2], files[3], files[4], files[5]) == 15,
        "malformed line %u of %s: %s", i + 1, path, lines[i]);
    c.name = g_strdup (name);
    for (p = 0; p < 3; p++) {
      c.input[p] = g_strdup (files[p]);
      c.output[p] = g_strdup (files[3 + p]);
    }
    g_array_append_val (cases, c);
  }
  *n_cases = cases->len;
  g_strfreev (lines);
  g_free (path);
  return (GoldenYuvCase *) g_array_free (cases, FALSE);
}

void
golden_free_yuv_cases (GoldenYuvCase * cases)
{
  GoldenYuvCase *c;
  guint p;

  for (c = cases; c->name; c++) {
    g_free (c->name);
    for (p = 0; p < 3; p++) {
      g_free (c->input[p]);
      g_free (c->output[p]);
    }
  }
  g_free (cases);
}

GoldenBorderCase *
golden_load_border_cases (guint * n_cases)
{
  gchar *path;
  gchar **lines = read_case_lines ("border_cases.txt", &path);
  GArray *cases = g_array_new (TRUE, TRUE, sizeof (GoldenBorderCase));
  guint i;

  for (i = 0; lines[i]; i++) {
    GoldenBorderCase b = { {0,}, FALSE, NULL, 0 };
    gchar name[256], mode[32], border[32], input[256], output[256];

    fail_unless (sscanf (lines[i], "%255s %31s %d %d %d %d %lf %lf %31s %d "
            "%255s %255s", name, mode, &b.c.channels, &b.c.width,
            &b.c.height, &b.c.diameter, &b.c.sigma_color, &b.c.sigma_space,
            border, &b.border_value, input, output) == 12
        && (g_str_equal (mode, "bilateral") || g_str_equal (mode,
                "gaussian")), "malformed line %u of %s: %s", i + 1, path,
        lines[i]);
    b.c.name = g_strdup (name);
    b.c.input = g_strdup (input);
    b.c.output = g_strdup (output);
    b.gaussian = g_str_equal (mode, "gaussian");
    b.border = g_strdup (border);
    g_array_append_val (cases, b);
  }
  *n_cases = cases->len;
  g_strfreev (lines);
  g_free (path);
  return (GoldenBorderCase *) g_array_free (cases, FALSE);
}

void
golden_free_border_cases (GoldenBorderCase * cases)
{
  GoldenBorderCase *b;

  for (b = cases; b->c.name; b++) {
    g_free (b->c.name);
    g_free (b->c.input);
    g_free (b->c.output);
    g_free (b->border);
  }
  g_free (cases);
}

guint8 *
golden_load_pnm (const gchar * file, gint * width, gint * height,
    gint * channels)
{
  gchar *path = g_build_filename (golden_dir (), file, NULL);
  gchar *data = NULL;
  gsize len = 0;
  gint maxval = 0, header = 0;
  gchar magic[3] = { 0, };
  guint8 *pixels;
  gsize size;

  fail_unless (g_file_get_contents (path, &data, &len, NULL),
      "cannot read %s", path);
  fail_unless (sscanf (data, "%2s %d %d %d%n", magic, width, height, &maxval,
          &header) == 4 && maxval == 255, "bad PNM header in %s", path);
  *channels = g_str_equal (magic, "P5") ? 1 : g_str_equal (magic, "P6") ? 3 : 0;
  fail_unless (*channels != 0, "%s is neither P5 nor P6", path);
  header++;                     /* the single white space after maxval */
  size = (gsize) * width * *height * *channels;
  fail_unless (len == header + size, "%s: %" G_GSIZE_FORMAT " bytes, "
      "expected %" G_GSIZE_FORMAT, path, len, header + size);
  pixels = g_memdup2 (data + header, size);
  g_free (data);
  g_free (path);
  return pixels;
}

guint
images_diff_beyond_one (const guint8 * a, gsize a_stride, const guint8 * b,
    gsize b_stride, gint width, gint height, gint a_pixel_bytes,
    gint a_offset, gint b_pixel_bytes, gint b_offset, gint channels,
    gint * max_diff, gint * first_x, gint * first_y)
{
  guint bad = 0;
  gint x, y, c;

  *max_diff = 0;
  *first_x = *first_y = -1;
  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      for (c = 0; c < channels; c++) {
        gint va = a[y * a_stride + x * a_pixel_bytes + a_offset + c];
        gint vb = b[y * b_stride + x * b_pixel_bytes + b_offset + c];
        gint d = abs (va - vb);
        if (d > *max_diff)
          *max_diff = d;
        if (d > 1) {
          if (bad == 0) {
            *first_x = x;
            *first_y = y;
          }
          bad++;
        }
      }
    }
  }
  return bad;
}
