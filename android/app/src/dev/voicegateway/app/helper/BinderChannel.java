package dev.voicegateway.app.helper;

import android.os.Binder;
import android.os.Bundle;
import android.os.IBinder;
import android.os.Parcel;
import android.os.ParcelFileDescriptor;
import android.os.RemoteException;
import dev.voicegateway.core.helper.HelperChannel;
import dev.voicegateway.core.helper.HelperDirectory;
import dev.voicegateway.core.helper.HelperLink;
import java.io.IOException;

/**
 * The Binder side of the helper channel ({@link HelperChannel}) that both processes share: a
 * Bundle as the channel's extras, the OPEN transaction from the caller's side, and turning a
 * received helper Binder into a {@link HelperDirectory.Helper} watched with linkToDeath.
 */
final class BinderChannel {
    private BinderChannel() {
    }

    /** A Bundle, holding only what the channel puts in it (ints and Binders: no class to load). */
    static final class BundleExtras implements HelperChannel.Extras {
        final Bundle bundle;

        BundleExtras(Bundle bundle) {
            this.bundle = bundle;
        }

        @Override
        public void putInt(String key, int value) {
            bundle.putInt(key, value);
        }

        @Override
        public int getInt(String key, int fallback) {
            return bundle.getInt(key, fallback);
        }

        @Override
        public void putBinder(String key, Object binder) {
            // Bundle.putBinder (API 18): the Binder crosses as itself, not inside a Parcelable of ours.
            bundle.putBinder(key, (IBinder) binder);
        }

        @Override
        public Object getBinder(String key) {
            return bundle.getBinder(key);
        }
    }

    /** The app's process's own Binder, handed to each helper so that it can watch this process die. */
    static IBinder appToken() {
        return new Binder();
    }

    /** How the app holds a helper's Binder. */
    static HelperDirectory.Binders binders() {
        return new HelperDirectory.Binders() {
            @Override
            public HelperDirectory.Helper helper(Object binder, final int announcerUid, final HelperDirectory directory) throws IOException {
                final IBinder b = (IBinder) binder;
                final HelperDirectory.Helper h = new HelperDirectory.Helper() {
                    @Override
                    public HelperLink.Connection open() throws IOException {
                        return BinderChannel.open(b, announcerUid, null);
                    }

                    @Override
                    public Object binder() {
                        return b;
                    }
                };
                try {
                    b.linkToDeath(new IBinder.DeathRecipient() {
                        @Override
                        public void binderDied() {
                            directory.gone(h);
                        }
                    }, 0);
                } catch (RemoteException e) {
                    throw new IOException("the helper's process is gone");
                }
                return h;
            }
        };
    }

    /**
     * The OPEN transaction on a helper's Binder: the caller's end of a new socketpair, whose peer is
     * {@code peerUid} (who announced it). Throws with the helper's reason when it refuses.
     */
    static HelperLink.Connection open(IBinder helper, int peerUid, String peerProcess) throws IOException {
        Parcel data = Parcel.obtain();
        Parcel reply = Parcel.obtain();
        try {
            data.writeInterfaceToken(HelperChannel.DESCRIPTOR);
            helper.transact(HelperChannel.OPEN, data, reply, 0);
            reply.readException();
            int status = reply.readInt();
            if (status == HelperChannel.OPENED) {
                ParcelFileDescriptor fd = reply.readFileDescriptor();
                if (fd == null) throw new IOException("the audio helper answered without a connection");
                return new FdConnection(fd, peerUid, peerProcess);
            }
            String why = status == HelperChannel.REFUSED ? reply.readString() : "its answer " + status;
            throw new IOException("the audio helper refused: " + why);
        } catch (RemoteException e) {
            throw new IOException("the audio helper is gone (" + e.getClass().getSimpleName() + ")");
        } catch (RuntimeException e) {
            // What the helper's Binder threw (Parcel.readException), e.g. a SecurityException.
            throw new IOException("the audio helper refused: " + e);
        } finally {
            reply.recycle();
            data.recycle();
        }
    }
}
