/* gst-cudabilateral test support: golden files written by make_golden.py
 * (OpenCV), and image comparison within the +-1 contract. */

#ifndef CBF_TEST_GOLDEN_H
#define CBF_TEST_GOLDEN_H

#include <glib.h>

typedef struct
{
  gchar *name;
  gint channels;                /* 1 (PGM) or 3 (PPM) */
  gint width;
  gint height;
  gint diameter;
  gdouble sigma_color;
  gdouble sigma_space;
  gchar *input;                 /* paths inside the golden directory */
  gchar *output;
} GoldenCase;

/* A chroma-subsampled YUV case (yuv_cases.txt): three planes, filtered
 * one by one, luma with the case's parameters, chroma with the scaled
 * ones. */
typedef struct
{
  gchar *name;
  gint subsampling;             /* 420 or 422 */
  gint width;                   /* of luma */
  gint height;
  gint diameter;
  gdouble sigma_color;
  gdouble sigma_space;
  gint chroma_diameter;
  gdouble chroma_sigma_space;
  gchar *input[3];              /* Y, U, V */
  gchar *output[3];
} GoldenYuvCase;

/* A border rule's case (border_cases.txt): the bilateral filter or
 * GaussianBlur (@gaussian; sigma_color unused, 0) with one of the border
 * property's rules. */
typedef struct
{
  GoldenCase c;
  gboolean gaussian;
  gchar *border;                /* the element's nick: reflect-101, ... */
  gint border_value;            /* constant's value, 8-bit levels */
} GoldenBorderCase;

/* Directory of the golden files (compiled in, overridable with the
 * environment variable CBF_GOLDEN_DIR). */
const gchar *golden_dir (void);

/* Reads cases.txt; the array ends with a case whose name is NULL. */
GoldenCase *golden_load_cases (guint * n_cases);
void golden_free_cases (GoldenCase * cases);

/* Reads gaussian_cases.txt (Gaussian mode: sigma_color unused, 0). */
GoldenCase *golden_load_gaussian_cases (guint * n_cases);

/* Reads yuv_cases.txt; the array ends with a case whose name is NULL. */
GoldenYuvCase *golden_load_yuv_cases (guint * n_cases);
void golden_free_yuv_cases (GoldenYuvCase * cases);

/* Reads border_cases.txt; the array ends with a case whose c.name is
 * NULL. */
GoldenBorderCase *golden_load_border_cases (guint * n_cases);
void golden_free_border_cases (GoldenBorderCase * cases);

/* Reads a binary PGM or PPM from the golden directory: tightly packed rows,
 * width * channels bytes each. Aborts the test on a malformed file. */
guint8 *golden_load_pnm (const gchar * file, gint * width, gint * height,
    gint * channels);

/* Compares @channels bytes of every pixel of two images (at byte offset
 * @offset within pixels of @pixel_bytes, rows @stride bytes apart).
 * Returns the number of bytes that differ by more than 1; the largest
 * difference and the first failing pixel go to @max_diff and @first. */
guint images_diff_beyond_one (const guint8 * a, gsize a_stride,
    const guint8 * b, gsize b_stride, gint width, gint height,
    gint a_pixel_bytes, gint a_offset, gint b_pixel_bytes, gint b_offset,
    gint channels, gint * max_diff, gint * first_x, gint * first_y);

#endif
